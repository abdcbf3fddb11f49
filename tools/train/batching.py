"""Batches of similar length, shared by train.py and multi.py."""


def pack(ordered, batch_tokens, rng):
    """Consecutive items of `ordered`, (item, length) pairs sorted by length, in batches whose
    longest length times their size stays within `batch_tokens` (a longer item alone is a batch of
    its own), the batches in random order."""
    out, current, longest = [], [], 0
    for item, length in ordered:
        if current and max(longest, length) * (len(current) + 1) > batch_tokens:
            out.append(current)
            current, longest = [], 0
        current.append(item)
        longest = max(longest, length)
    if current:
        out.append(current)
    rng.shuffle(out)
    return out
