"""Show when a meeting room is busy, given its bookings."""

BOOKINGS = [
    ("09:00", "09:30"),
    ("13:00", "14:00"),
    ("09:15", "10:00"),
    ("10:00", "10:45"),
    ("11:30", "12:00"),
    ("13:30", "13:45"),
    ("16:00", "16:00"),
    ("15:00", "15:30"),
]


def to_minutes(hhmm):
    hours, minutes = hhmm.split(":")
    return int(hours) * 60 + int(minutes)


def to_hhmm(minutes):
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def merge_bookings(bookings):
    """Merge bookings into the busy periods of the room.

    `bookings` is a list of (start, end) pairs of minutes after midnight, in
    any order; a booking covers start up to but not including end. Bookings
    that overlap or touch (one ends exactly when the next starts) merge into
    one period. Empty bookings (start == end) are ignored. Return the periods
    as a new list of (start, end) tuples sorted by start; do not modify the
    argument.
    """
    periods = []
    for start, end in sorted(b for b in bookings if b[0] < b[1]):
        if periods and start <= periods[-1][1]:
            periods[-1] = (periods[-1][0], max(periods[-1][1], end))
        else:
            periods.append((start, end))
    return periods


raw = [(to_minutes(a), to_minutes(b)) for a, b in BOOKINGS]
snapshot = list(raw)
busy = merge_bookings(raw)
print(f"{len(raw)} bookings, {len(busy)} busy periods")
for start, end in busy:
    print(f"  {to_hhmm(start)}-{to_hhmm(end)} ({end - start} min)")
print(f"busy in total: {sum(end - start for start, end in busy)} min")
print(f"input untouched: {raw == snapshot}")
