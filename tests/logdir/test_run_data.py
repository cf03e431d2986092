"""KindStore.purge against a brute-force model: random appends and purges (tag sets, all tags)."""
import random

from tensorboard.logdir.run_data import KindStore


def test_purges_match_a_brute_force_model_whatever_the_order():
    for seed in range(3000):
        rng = random.Random(seed)
        store, model = KindStore(numeric=True), []
        for index in range(rng.randint(1, 40)):
            if rng.random() < 0.55:
                tag, step = rng.choice("abcd"), rng.randint(0, 12)
                store.add(tag, step, 0.0, 0, float(index))
                model.append((tag, step, float(index)))
            else:
                step = rng.randint(0, 12)
                tags = None if rng.random() < 0.2 else set(rng.sample("abcd", rng.randint(1, 3)))
                store.purge(step, tags)
                model = [row for row in model if not (row[1] >= step and (tags is None or row[0] in tags))]
            rows = [(store.tag_names[t], s, v) for t, s, v in zip(store.tags, store.steps, store.values)]
            assert rows == model, seed


def test_a_restart_with_alternating_tags_scans_only_new_rows():
    """After a restart every event purges; each scan covers only the rows since that tag's last purge."""
    store = KindStore(numeric=True)
    for step in range(100, 200):
        store.add("a", step, 0.0, 0, 1.0)
        store.add("b", step, 0.0, 0, 1.0)
    scanned = []
    for step in range(50, 150):
        for tag in "ab":
            rows_before = len(store)
            start = min(store._clean_rows(store.tag_ids[tag], step), rows_before)
            store.purge(step, {tag})
            scanned.append(rows_before - start)
            store.add(tag, step, 0.0, 0, 2.0)
    assert max(scanned[2:]) <= 2  # the first purge of each tag scans everything, later ones one or two rows
    assert [s for t, s in zip(store.tags, store.steps) if store.tag_names[t] == "a"] == list(range(50, 150))
