"""Challenges: sample repos with a known-correct output, and the runner that scores Codur."""
