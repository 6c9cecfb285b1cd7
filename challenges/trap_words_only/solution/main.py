"""The league table after the last round."""

PLAYERS = [("bo", 7), ("cy", 9), ("al", 7), ("di", 3)]


def ranking(players):
    """(name, score) pairs, highest score first; equal scores in name order, A to Z."""
    return sorted(players, key=lambda player: (-player[1], player[0]))


print(", ".join(f"{name} {score}" for name, score in ranking(PLAYERS)))
