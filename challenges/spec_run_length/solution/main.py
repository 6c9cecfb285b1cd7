"""Run-length encode a few strings."""


def run_length_encode(text):
    """Compress runs of a repeated character.

    Each maximal run of one character becomes the run length followed by
    the character: "aaabcc" -> "3a1b2c". The empty string encodes to "".
    """
    out = []
    i = 0
    while i < len(text):
        j = i
        while j < len(text) and text[j] == text[i]:
            j += 1
        out.append(f"{j - i}{text[i]}")
        i = j
    return "".join(out)


for sample in ["aaabcc", "", "abc", "zzzzzzzzzzzz", "aabbaa", "  !!"]:
    print(f"{sample!r} -> {run_length_encode(sample)!r}")
