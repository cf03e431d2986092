"""setup.py for our `tensorboard` wheel (standalone TensorBoard).

Run by tools/pip_package/build_pip_package.sh from its staging directory,
which holds:
  tensorboard/                        our logger package (import `tensorboard`)
  tensorboard_standalone_renderer/    a tiny package holding the renderer's
      tensorboard.runfiles/           dereferenced Bazel runfiles (upstream
                                      TensorBoard + our launcher main)
  scripts/tensorboard                 the patched Bazel launcher stub
The upstream renderer is not a top-level package of the wheel, so it can never
shadow our logger in site-packages; our `tensorboard` package reaches its modules
through `__path__` (tensorboard/upstream_path.py).

The distribution is named `tensorboard`, like upstream's, with a local version label
(`2.21.0+standalone.1`): pip treats it as the `tensorboard` every dependent asks for,
replaces upstream's with it, and never installs upstream over it.
"""

import os
import re

from setuptools import find_namespace_packages, setup

HERE = os.path.dirname(os.path.abspath(__file__))

# Runtime needs of the upstream renderer (tensorboard==2.21.0's own
# requirements), plus ours (numpy, protobuf).
INSTALL_REQUIRES = [
    "absl-py>=0.4",
    "crc32c>=2.3",  # native CRC-32C for the logger (a pure-Python fallback exists)
    "grpcio>=1.74,<2",
    "markdown>=2.6.8",
    "numpy>=1.12.0",
    "packaging",
    "pillow",
    "protobuf>=6.31.1,<8",
    "setuptools>=41.0.0",
    "tensorboard-data-server>=0.7.0,<0.8.0",
    "werkzeug>=1.0.1",
]

EXTRAS_REQUIRE = {
    # Our logger writes S3 through fsspec/s3fs; our reader (the UI's too) lists and fetches it through
    # obstore, and through s3fs without it. boto3 stays for upstream's Python loader
    # (--data_provider=multiplexer), which reads S3 through it.
    # Floors matter: unpinned, pip may pair a new boto3 with s3fs 0.4 (2019), which cannot
    # take an endpoint_url; obstore from the release whose settings (S3Store, client options) the reader uses.
    "s3": ["fsspec>=2023.1.0", "s3fs>=2023.1.0", "boto3", "obstore>=0.12; python_version >= '3.11'"],
    # tensorboard.reader.SummaryReader (DataFrames), `tensorboard export` (Parquet via pyarrow),
    # image decoding in SummaryReader.images (Pillow).
    "data": ["pandas>=2.0", "pyarrow>=14", "pillow"],
    # tensorboard.reader.to_dask: a logdir as a dask DataFrame read by dask's workers.
    "dask": ["dask[dataframe]>=2024.1", "pandas>=2.0", "pyarrow>=14"],
    # tensorboard.system: CPU, memory, disk and network (psutil) and NVIDIA GPU (NVML) metrics.
    "system": ["psutil>=5.9", "nvidia-ml-py>=12"],
    # tensorboard.reader.plot and `tensorboard plot`: figures drawn with matplotlib; pandas for seed groups.
    "plot": ["matplotlib>=3.7", "pandas>=2.0"],
}


def read_version():
    """Return `__version__` from tensorboard/_version.py without importing it."""
    with open(os.path.join(HERE, "tensorboard", "_version.py"), encoding="utf-8") as f:
        match = re.search(r"""^__version__\s*=\s*["']([^"']+)["']""", f.read(), re.M)
    if not match:
        raise RuntimeError("no __version__ in tensorboard/_version.py")
    return match.group(1)


def read_readme():
    """Return the package README used as the long description."""
    with open(os.path.join(HERE, "README.md"), encoding="utf-8") as f:
        return f.read()


setup(
    name="tensorboard",
    version=read_version(),
    description="Standalone TensorBoard: a pure-Python event logger plus the TensorBoard web UI",
    long_description=read_readme(),
    long_description_content_type="text/markdown",
    license="Apache-2.0",
    # The Pythons `make test` runs the core suite on (tools/matrix_envs.sh, docs/compatibility.md).
    python_requires=">=3.10",
    packages=sorted(
        find_namespace_packages(include=["tensorboard", "tensorboard.*"])
        + ["tensorboard_standalone_renderer"]
    ),
    package_data={
        "tensorboard": ["py.typed", "**/*.pyi", "report/assets/*", "report/vendor/*"],
        "tensorboard_standalone_renderer": ["tensorboard.runfiles/**/*"],
    },
    scripts=["scripts/tensorboard"],
    install_requires=INSTALL_REQUIRES,
    extras_require=EXTRAS_REQUIRE,
    # Upstream's dynamic plugin registration, so in-process servers (tensorboard.program,
    # `python -m tensorboard.main`, %tensorboard) get the projector as with upstream's wheel.
    entry_points={
        "tensorboard_plugins": ["projector = tensorboard.plugins.projector.projector_plugin:ProjectorPlugin"]},
    zip_safe=False,
    classifiers=[
        "Programming Language :: Python :: 3",
        "Programming Language :: Python :: 3 :: Only",
        "Programming Language :: Python :: 3.10",
        "Programming Language :: Python :: 3.11",
        "Programming Language :: Python :: 3.12",
        "Programming Language :: Python :: 3.13",
        "License :: OSI Approved :: Apache Software License",
    ],
)
