TEXT = """The quick brown fox jumps over the lazy dog.
The dog sleeps; the fox runs away, quick as ever!
A lazy afternoon is never quick for a busy fox."""

STOPWORDS = {"the", "a", "is", "as", "for", "over"}


def tokenize(text):
    words = []
    for raw in text.split():
        word = raw.strip(".,;!?").lower()
        if word:
            words.append(word)
    return words


def frequencies(words, skip):
    counts = {}
    for word in words:
        if word in skip:
            continue
        counts[word] = counts.get(word, 0) + 1
    return counts


def top_words(counts, n):
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return ranked[:n]


def longest_line(text):
    best = ""
    for line in text.splitlines():
        if len(line) > len(best):
            best = line
    return best


words = tokenize(TEXT)
counts = frequencies(words, STOPWORDS)
print(f"total words: {len(words)}")
print(f"unique words: {len(set(words))}")
print(f"content words: {len(counts)}")
for word, count in top_words(counts, 4):
    print(f"  {word:<10}{count:>3}")
average = sum(len(w) for w in words) / len(words)
print(f"average length: {average:.2f}")
print(f"longest line starts: {longest_line(TEXT)[:12]!r}")
print(f"last three: {' '.join(words[-3:])}")
