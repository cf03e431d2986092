"""Record scanning of many small byte strings at once (the new bytes of many event files): one joined
buffer, every record's lengths and CRCs checked in a few NumPy calls for all of them, so a logdir of
thousands of small files costs what one large file costs, not thousands of scans. The checks and
the damage reported are those of `scan.scan_spans`, file by file."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tensorboard.events.byte_rows import byte_rows
from tensorboard.events.record import CorruptEventFileError
from tensorboard.events.scan import bad_heads, bad_payloads, head_damage, walk


@dataclass
class TailScan:
    """One byte string's intact records: payload spans in the joined buffer, how many bytes of whole
    intact records it starts with, and what is wrong right after them (None: nothing, or a record
    the bytes end inside of)."""

    first: int  # index of its first record in the joined arrays
    count: int  # its intact, complete records
    consumed: int
    damage: str | None = None
    in_header: bool = False  # the damage is in a record's header (length or its CRC)

    def error(self, path: str, start: int) -> CorruptEventFileError | None:
        """The damage as scan_spans raises it, for a tail read from file offset `start`; None if intact."""
        if self.damage is None:
            return None
        offset = start + self.consumed
        message = self.damage + (" (not an event file?)" if self.in_header and not offset else "")
        return CorruptEventFileError(message, offset, path)


def intact_spans(starts: np.ndarray, ends: np.ndarray, scans: list[TailScan]) -> tuple[np.ndarray, np.ndarray]:
    """scan_tails' payload starts and ends of the intact records only, tail after tail: each tail's
    records are then at [sum of the counts before it, + its count)."""
    if not scans:
        return starts, ends
    take = np.concatenate([np.arange(t.first, t.first + t.count) for t in scans]).astype(np.int64)
    return starts[take], ends[take]


def scan_tails(tails: list[bytes]) -> tuple[bytes, np.ndarray, np.ndarray, list[TailScan]]:
    """(joined buffer, payload starts, payload ends, a TailScan per tail) for byte strings that each
    start at a record boundary."""
    joined = b"".join(tails)
    bases = np.cumsum([0] + [len(t) for t in tails[:-1]]).tolist() if tails else []
    data = np.frombuffer(joined, np.uint8)
    walks = _walk_tails(data, tails, bases)
    pos = np.concatenate(walks) if walks else np.zeros(0, np.int64)
    heads = byte_rows(data, pos, 12)
    lengths = heads[:, :8].view("<u8").ravel()
    head_crcs = heads[:, 8:].view("<u4").ravel()
    heads_ok: dict = {}
    bad_head = bad_heads(lengths, head_crcs, heads_ok) if len(pos) else np.zeros(0, bool)
    sane = np.where(bad_head, 0, lengths).astype(np.int64)  # lengths of bad headers are not used
    ends = pos + 12 + sane
    owner_end = np.repeat(np.asarray([b + len(t) for t, b in zip(tails, bases)], np.int64),
                          [len(w) for w in walks])
    complete = ~bad_head & (ends + 4 <= owner_end)
    bad_payload = np.zeros(len(pos), bool)
    check = np.flatnonzero(complete)
    mv = memoryview(joined)
    try:
        bad_payload[check] = bad_payloads(joined, mv, pos[check] + 12, ends[check])
    finally:
        mv.release()
    scans, first = [], 0
    for chain, base in zip(walks, bases):
        n = len(chain)
        wrong = np.flatnonzero(bad_head[first:first + n] | bad_payload[first:first + n])
        whole = int(np.count_nonzero(complete[first:first + n]))  # complete ones precede a partial last
        if len(wrong):
            j = int(wrong[0])
            at = first + j
            in_header = bool(bad_head[at])
            damage = head_damage(int(lengths[at]), int(head_crcs[at]), heads_ok) if in_header \
                else "payload CRC mismatch"
            scans.append(TailScan(first, j, int(pos[at]) - base, damage, in_header))
        else:
            consumed = int(ends[first + whole - 1]) + 4 - base if whole else 0
            scans.append(TailScan(first, whole, consumed))
        first += n
    return joined, pos + 12, ends, scans


# Record chains (offsets from walk) of recent tails, by tail length. The runs of a sweep log alike, so
# their files of one length mostly have one chain: checking a known chain against a tail's lengths is
# a few NumPy calls for every such tail at once, where walking each tail takes a few per tail.
_CHAINS: dict[int, np.ndarray] = {}
_CHAINS_KEPT = 256


def _walk_tails(data: np.ndarray, tails: list[bytes], bases: list[int]) -> list[np.ndarray]:
    """walk() of every tail, offsets in the joined buffer `data`: a known chain where it holds, else a walk."""
    walks: list = [None] * len(tails)
    guessed = [(i, _CHAINS.get(len(tail))) for i, tail in enumerate(tails)]
    guessed = [(i, chain) for i, chain in guessed if chain is not None]
    if guessed:
        counts = np.asarray([len(chain) for _, chain in guessed], np.int64)
        starts = np.asarray([bases[i] for i, _ in guessed], np.int64)
        offsets = np.concatenate([chain for _, chain in guessed]) + np.repeat(starts, counts)
        lengths = byte_rows(data, offsets, 8).view("<u8").ravel()
        following = offsets + 16 + np.minimum(lengths, len(data)).astype(np.int64)
        last = np.cumsum(counts) - 1
        holds = np.empty(len(offsets), bool)
        holds[:-1] = following[:-1] == offsets[1:]  # each record's length leads to the next one
        ends = starts + np.asarray([len(tails[i]) for i, _ in guessed], np.int64)
        holds[last] = following[last] + 12 > ends  # and the last one's to no further header
        failed = np.add.reduceat(~holds, last - counts + 1) > 0
        for (i, _), part, wrong in zip(guessed, np.split(offsets, last[:-1] + 1), failed.tolist()):
            if not wrong:
                walks[i] = part
    for i, tail in enumerate(tails):
        if walks[i] is None:
            chain = walk(tail, len(tail))
            if len(chain):
                if len(_CHAINS) >= _CHAINS_KEPT:
                    _CHAINS.clear()
                chain.setflags(write=False)
                _CHAINS[len(tail)] = chain
            walks[i] = chain + bases[i]
    return walks
