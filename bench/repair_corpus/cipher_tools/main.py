def rle_encode(text):
    if not text:
        return ""
    parts = []
    run_char, run_len = text[0], 1
    for ch in text[1:]:
        if ch == run_char:
            run_len += 1
        else:
            parts.append(f"{run_len}{run_char}")
            run_char, run_len = ch, 1
    parts.append(f"{run_len}{run_char}")
    return "".join(parts)


def rle_decode(encoded):
    result = []
    digits = ""
    for ch in encoded:
        if ch.isdigit():
            digits += ch
            continue
        result.append(ch * int(digits))
        digits = ""
    return "".join(result)


def caesar(text, shift):
    out = []
    for ch in text:
        if ch.isalpha():
            base = ord("A") if ch.isupper() else ord("a")
            out.append(chr((ord(ch) - base + shift) % 26 + base))
        else:
            out.append(ch)
    return "".join(out)


def reverse_words(text):
    words = text.split(" ")
    if len(words) <= 1:
        return text
    return words[-1] + " " + reverse_words(" ".join(words[:-1]))


samples = ["aaabccddddd", "wwwwwwwwwwwwbx", "", "abc"]
for sample in samples:
    encoded = rle_encode(sample)
    ratio = len(encoded) / len(sample) if sample else 0.0
    ok = rle_decode(encoded) == sample
    print(f"{sample!r:>18} -> {encoded!r:<12} ratio={ratio:.2f} roundtrip={ok}")
message = "Hello, World! Meet at Zone 9"
secret = caesar(message, 3)
print(secret)
print(caesar(secret, -3))
print(caesar("xyz ABC", 29))
print(reverse_words("one two three four"))
