DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]


def is_leap(year):
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def month_length(year, month):
    if month == 2 and is_leap(year):
        return 29
    return DAYS_IN_MONTH[month - 1]


def day_of_year(year, month, day):
    if not 1 <= month <= 12 or not 1 <= day <= month_length(year, month):
        return -1
    return sum(month_length(year, m) for m in range(1, month)) + day


def days_since_epoch(year, month, day):
    # days since 2000-01-01 (a Saturday)
    total = 0
    for y in range(2000, year):
        total += 366 if is_leap(y) else 365
    return total + day_of_year(year, month, day) - 1


def weekday(year, month, day):
    return WEEKDAYS[(days_since_epoch(year, month, day) + 5) % 7]


dates = [(2024, 3, 1), (2023, 12, 31), (2000, 2, 29), (2100, 2, 29), (2024, 7, 18)]
for y, m, d in dates:
    doy = day_of_year(y, m, d)
    if doy < 0:
        print(f"{y:04d}-{m:02d}-{d:02d}: invalid date")
        continue
    print(f"{y:04d}-{m:02d}-{d:02d}: day {doy}, {weekday(y, m, d)}")
span = days_since_epoch(2024, 7, 18) - days_since_epoch(2023, 12, 31)
print(f"days between: {span}, weeks: {span // 7}, fraction: {span / 7:.3f}")
leaps = [y for y in range(1896, 1912) if is_leap(y)]
print(f"leap years 1896-1911: {leaps}")
