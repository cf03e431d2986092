"""String columns (and column labels) of a DataFrame as object, so frames compare and unpickle alike
whichever pandas made them (pandas 3 picks pyarrow- or python-backed strings; pandas 2 reads neither)."""
import pandas as pd


def object_strings(frame):
    """A copy of `frame` with its string columns and labels as object; anything else as it is."""
    if not isinstance(frame, pd.DataFrame):
        return frame
    frame = frame.copy()
    frame.columns = pd.Index(list(frame.columns), dtype=object)
    for column in frame.columns:
        if isinstance(frame[column].dtype, pd.StringDtype):
            frame[column] = frame[column].astype(object)
    return frame
