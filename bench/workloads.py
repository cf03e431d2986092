"""The benchmark's workloads, data and event-file checker (the memory probe is bench/memory.py).

Imported by bench/worker.py in every library's interpreter (ours, and the upstream venv
with tensorboardX and torch), so it depends on nothing but numpy and the stdlib.

Every workload gets the same seeded data, generated before the clock starts; each one
is timed from writer creation to `close()` returning ("end-to-end"), and separately the
time spent inside the `add_*` calls ("caller time").
"""
from __future__ import annotations

import os
import struct
import time

import numpy as np

# What our writer logs of its own at the start of a run (tensorboard.src.run_metadata: where, on what, by
# which code): not a tag of the workload, spelled here because the scan runs in every library's interpreter.
RUN_METADATA_TAGS = {b"run/metadata", b"run/metadata_fields"}

SEED = 20240611

# name -> (description, expected summary values, calls)
WORKLOADS = {
    "scalars_1tag": ("200,000 add_scalar on one tag", 200_000),
    "scalars_100tags": ("100 tags x 2,000 steps add_scalar", 200_000),
    "histograms": ("200 add_histogram of 1,000,000 float32", 200),
    "images": ("200 add_image 3x256x256 uint8", 200),
    "embedding": ("1 add_embedding 10,000x128 + labels", 1),
}
SCALAR_WORKLOADS = ("scalars_1tag", "scalars_100tags")
HIST_POOL = 16  # distinct 1M-float32 arrays cycled through by the 200 histogram calls (64 MB)


# -- data ----------------------------------------------------------------------------------------

def make_data(workload: str):
    """The workload's inputs: plain Python floats for scalars, numpy arrays otherwise."""
    rng = np.random.default_rng(SEED)
    if workload == "scalars_1tag":
        return {"values": rng.standard_normal(200_000).tolist()}
    if workload == "scalars_100tags":
        return {"tags": [f"group{t // 10}/metric_{t:03d}" for t in range(100)],
                "values": rng.standard_normal((2000, 100)).tolist()}
    if workload == "histograms":
        # weights-like tensors of varying scale; 16 distinct arrays, each 4 MB (bigger than L2)
        return {"arrays": [(rng.standard_normal(1_000_000, dtype=np.float32) * np.float32(0.05 * (1 + i)))
                           for i in range(HIST_POOL)]}
    if workload == "images":
        # uniform noise: incompressible, the worst case for PNG encoding (and the usual benchmark input)
        return {"images": rng.integers(0, 256, size=(200, 3, 256, 256), dtype=np.uint8)}
    if workload == "embedding":
        return {"mat": rng.standard_normal((10_000, 128), dtype=np.float32),
                "labels": [f"item_{i}_class_{i % 10}" for i in range(10_000)]}
    raise ValueError(f"unknown workload {workload!r}")


# -- running one workload with a SummaryWriter-like API -------------------------------------------

def run_workload(workload: str, make_writer, data, logdir: str) -> dict:
    """Runs `workload` with `make_writer(logdir)`; returns timings in seconds."""
    clock = time.perf_counter
    t0 = clock()
    writer = make_writer(logdir)
    t_created = clock()
    call_times: list[float] = []
    if workload == "scalars_1tag":
        add = writer.add_scalar
        values = data["values"]
        block_times = []
        for start in range(0, len(values), 1000):  # per-1000-call blocks: loop overhead only
            b0 = clock()
            for step in range(start, start + 1000):
                add("loss", values[step], step)
            block_times.append(clock() - b0)
        caller = sum(block_times)
        calls = len(values)
        extra = {"block_max_us_per_call": max(block_times) / 1000 * 1e6}
    elif workload == "scalars_100tags":
        add = writer.add_scalar
        tags = data["tags"]
        block_times = []
        for step, row in enumerate(data["values"]):  # one block = one step = 100 calls
            b0 = clock()
            for tag, value in zip(tags, row):
                add(tag, value, step)
            block_times.append(clock() - b0)
        caller = sum(block_times)
        calls = len(tags) * len(data["values"])
        extra = {"block_max_us_per_call": max(block_times) / len(tags) * 1e6}
    elif workload == "histograms":
        arrays = data["arrays"]
        for step in range(200):
            c0 = clock()
            writer.add_histogram("weights", arrays[step % len(arrays)], step)
            call_times.append(clock() - c0)
        caller, calls, extra = sum(call_times), 200, {}
    elif workload == "images":
        images = data["images"]
        for step in range(len(images)):
            c0 = clock()
            writer.add_image("sample", images[step], step, dataformats="CHW")
            call_times.append(clock() - c0)
        caller, calls, extra = sum(call_times), len(images), {}
    elif workload == "embedding":
        c0 = clock()
        writer.add_embedding(mat=data["mat"], metadata=data["labels"], tag="emb", global_step=0)
        call_times.append(clock() - c0)
        caller, calls, extra = sum(call_times), 1, {}
    else:
        raise ValueError(workload)
    t_closing = clock()
    writer.close()
    t_end = clock()
    out = {"e2e_s": t_end - t0, "create_s": t_created - t0, "caller_s": caller, "close_s": t_end - t_closing,
           "calls": calls, "us_per_call": caller / calls * 1e6}
    if call_times:
        ordered = sorted(call_times)
        out["call_p50_ms"] = ordered[len(ordered) // 2] * 1e3
        out["call_max_ms"] = ordered[-1] * 1e3
    out.update(extra)
    return out


# -- reference rows: a plain loop writing the same framed scalar records ----------------------------

_PACK_TIME = struct.Struct("<Bd").pack
_PACK_F = struct.Struct("<f").pack
_PACK_LEN = struct.Struct("<Q").pack
_PACK_U32 = struct.Struct("<I").pack


def _varint(n: int) -> bytes:
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _scalar_prefix(tag: str) -> bytes:
    raw = tag.encode()
    tag_field = b"\x0a" + _varint(len(raw)) + raw
    value_len = len(tag_field) + 5
    summary_len = 1 + len(_varint(value_len)) + value_len
    return b"\x2a" + _varint(summary_len) + b"\x0a" + _varint(value_len) + tag_field + b"\x15"


def _masked_crc_fn():
    """The same CRC-32C our logger uses in this process (native or pure Python)."""
    from tensorboard.events.crc32c import masked_crc32c

    return masked_crc32c


def _scalar_calls(workload: str, data):
    if workload == "scalars_1tag":
        return [("loss", v, s) for s, v in enumerate(data["values"])]
    tags = data["tags"]
    return [(tag, v, step) for step, row in enumerate(data["values"]) for tag, v in zip(tags, row)]


def prepare_reference(kind: str, workload: str, data) -> dict:
    """Everything the reference loop needs, built before the memory baseline and the clock."""
    calls = _scalar_calls(workload, data)
    prefixes = {tag: _scalar_prefix(tag) for tag in {c[0] for c in calls}}
    prepared = {"kind": kind, "calls": calls, "prefixes": prefixes, "crc": _masked_crc_fn()}
    if kind == "pre":
        now = time.time()
        prepared["records"] = [_frame(prepared["crc"], b"".join((_PACK_TIME(9, now), b"\x10" + _varint(s) if s else b"",
                                                                 prefixes[t], _PACK_F(v)))) for t, v, s in calls]
        prepared["calls"] = None
    return prepared


def _frame(crc, payload: bytes) -> bytes:
    header = _PACK_LEN(len(payload))
    return header + _PACK_U32(crc(header)) + payload + _PACK_U32(crc(payload))


def run_reference(prepared: dict, logdir: str) -> dict:
    """`hand`: encode + frame + write each record in one synchronous loop. `pre`: write pre-framed records."""
    kind, crc, prefixes = prepared["kind"], prepared["crc"], prepared["prefixes"]
    path = os.path.join(logdir, f"events.out.tfevents.{int(time.time()):010d}.bench.{os.getpid()}.ref")
    os.makedirs(logdir, exist_ok=True)
    version = b"\x09" + struct.pack("<d", time.time()) + b"\x1a\x0dbrain.Event:2"
    clock = time.perf_counter
    if kind == "pre":
        records = prepared["records"]
        t0 = clock()
        with open(path, "wb") as f:
            f.write(_frame(crc, version))
            l0 = clock()
            write = f.write
            for rec in records:
                write(rec)
            loop = clock() - l0
        t_end = clock()
        calls = len(records)
    elif kind == "hand":
        calls = prepared["calls"]
        t0 = clock()
        with open(path, "wb") as f:
            f.write(_frame(crc, version))
            l0 = clock()
            write, now = f.write, time.time
            for tag, value, step in calls:
                payload = b"".join((_PACK_TIME(9, now()), b"\x10" + _varint(step) if step else b"",
                                    prefixes[tag], _PACK_F(value)))
                header = _PACK_LEN(len(payload))
                write(b"".join((header, _PACK_U32(crc(header)), payload, _PACK_U32(crc(payload)))))
            loop = clock() - l0
        t_end = clock()
        calls = len(calls)
    else:
        raise ValueError(kind)
    return {"e2e_s": t_end - t0, "create_s": 0.0, "caller_s": loop, "close_s": 0.0, "calls": calls,
            "us_per_call": loop / calls * 1e6}


# -- checking what was written (a fast reader: framing + top-level protobuf fields only) ----------

def _read_varint(buf, pos: int):
    result = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7


def _skip(buf, pos: int, wire_type: int) -> int:
    if wire_type == 0:
        return _read_varint(buf, pos)[1]
    if wire_type == 1:
        return pos + 8
    if wire_type == 2:
        n, pos = _read_varint(buf, pos)
        return pos + n
    if wire_type == 5:
        return pos + 4
    raise ValueError(f"unsupported wire type {wire_type}")


_VALUE_KINDS = {2: "simple_value", 3: "obsolete_old_style_histogram", 4: "image", 5: "histo", 6: "audio",
                8: "tensor"}


def _scan_summary(buf, start: int, end: int, counts: dict, tags: set) -> None:
    pos = start
    while pos < end:
        key, pos = _read_varint(buf, pos)
        if key >> 3 == 1 and key & 7 == 2:  # Summary.value
            n, pos = _read_varint(buf, pos)
            vend = pos + n
            vpos = pos
            tag, kinds = b"", []
            while vpos < vend:
                vkey, vpos = _read_varint(buf, vpos)
                field, wt = vkey >> 3, vkey & 7
                if field == 1 and wt == 2:
                    ln, vpos = _read_varint(buf, vpos)
                    tag = bytes(buf[vpos:vpos + ln])
                    tags.add(tag)
                    vpos += ln
                    continue
                kind = _VALUE_KINDS.get(field)
                if kind:
                    kinds.append(kind)
                vpos = _skip(buf, vpos, wt)
            if tag not in RUN_METADATA_TAGS:  # our writer's run metadata: not a value of the workload
                for kind in kinds:
                    counts[kind] = counts.get(kind, 0) + 1
            pos = vend
        else:
            pos = _skip(buf, pos, key & 7)


def _crc_table() -> list:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
        table.append(crc)
    return table


_TABLE = _crc_table()


def _masked_crc32c_py(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for b in data:
        crc = _TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    crc ^= 0xFFFFFFFF
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def scan_logdir(logdir: str) -> dict:
    """Counts records, events with a summary, summary values by kind and distinct tags below `logdir`.

    Checks every record's framing and length CRC (and, with a native crc32c, the payload CRC).
    """
    try:
        import crc32c as _native

        def masked(data, _c=_native.crc32c):
            c = _c(data)
            return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF
    except ImportError:
        masked = None
    slow_masked = _masked_crc32c_py

    files = records = summaries = 0
    counts: dict = {}
    tags: set = set()
    other_files: dict = {}
    for directory, _dirs, names in os.walk(logdir):
        for name in names:
            path = os.path.join(directory, name)
            if "tfevents" not in name:
                rel = os.path.relpath(path, logdir)
                with open(path, "rb") as f:
                    other_files[rel] = {"bytes": os.path.getsize(path), "lines": sum(1 for _ in f)}
                continue
            files += 1
            with open(path, "rb") as f:
                buf = memoryview(f.read())
            pos = 0
            while pos < len(buf):
                if pos + 12 > len(buf):
                    raise ValueError(f"{path}: truncated header at {pos}")
                header = bytes(buf[pos:pos + 8])
                (length,) = struct.unpack("<Q", header)
                (hcrc,) = struct.unpack_from("<I", buf, pos + 8)
                if slow_masked(header) != hcrc:
                    raise ValueError(f"{path}: bad length CRC at {pos}")
                start = pos + 12
                end = start + length
                if end + 4 > len(buf):
                    raise ValueError(f"{path}: truncated record at {pos}")
                if masked is not None:
                    (pcrc,) = struct.unpack_from("<I", buf, end)
                    if masked(buf[start:end]) != pcrc:
                        raise ValueError(f"{path}: bad payload CRC at {pos}")
                records += 1
                p = start
                while p < end:
                    key, p = _read_varint(buf, p)
                    if key == 0x2A:  # Event.summary
                        n, p = _read_varint(buf, p)
                        summaries += 1
                        _scan_summary(buf, p, p + n, counts, tags)
                        p += n
                    else:
                        p = _skip(buf, p, key & 7)
                pos = end + 4
    logged = tags - RUN_METADATA_TAGS
    return {"event_files": files, "records": records, "summary_events": summaries, "values": counts,
            "tags": len(logged), "run_metadata": bool(tags & RUN_METADATA_TAGS),
            "payload_crc_checked": masked is not None, "other_files": other_files}


def check(workload: str, scan: dict, data) -> list[str]:
    """Problems with what a library wrote for `workload` (empty when it all arrived)."""
    problems = []
    values = scan["values"]
    if workload in SCALAR_WORKLOADS:
        want_tags = 1 if workload == "scalars_1tag" else 100
        if values.get("simple_value", 0) != 200_000:
            problems.append(f"expected 200000 scalar values, found {values}")
        if scan["tags"] != want_tags:
            problems.append(f"expected {want_tags} tags, found {scan['tags']}")
    elif workload == "histograms":
        if values.get("histo", 0) + values.get("tensor", 0) != 200:
            problems.append(f"expected 200 histograms, found {values}")
    elif workload == "images":
        if values.get("image", 0) + values.get("tensor", 0) != 200:
            problems.append(f"expected 200 images, found {values}")
    elif workload == "embedding":
        files = scan["other_files"]
        tensors = [v for k, v in files.items() if os.path.basename(k).startswith("tensors")]
        meta = [v for k, v in files.items() if os.path.basename(k).startswith("metadata")]
        config = [k for k in files if k.endswith("projector_config.pbtxt")]
        if not tensors or tensors[0]["lines"] != 10_000:
            problems.append(f"expected a 10000-line tensors file, found {tensors}")
        if not meta or meta[0]["lines"] not in (10_000, 10_001):
            problems.append(f"expected a 10000-line metadata file, found {meta}")
        if not config:
            problems.append("no projector_config.pbtxt")
    return problems
