"""Sort songs into playlists by mood and print each playlist."""


class Playlist:
    def __init__(self, name, songs=None):
        self.name = name
        self.songs = songs if songs is not None else []

    def add(self, title, seconds):
        self.songs.append((title, seconds))

    def duration(self):
        total = sum(seconds for _, seconds in self.songs)
        return f"{total // 60}:{total % 60:02d}"


LIBRARY = [
    ("Morning Light", "calm", 214),
    ("Hammer Down", "loud", 187),
    ("Slow River", "calm", 301),
    ("Neon Run", "loud", 242),
    ("Paper Moon", "calm", 165),
    ("Static", "odd", 99),
]

playlists = {}
for title, mood, seconds in LIBRARY:
    if mood not in playlists:
        playlists[mood] = Playlist(mood)
    playlists[mood].add(title, seconds)

for mood in sorted(playlists):
    plist = playlists[mood]
    print(f"{plist.name}: {len(plist.songs)} songs, {plist.duration()}")
    for title, _ in plist.songs:
        print(f"  - {title}")
