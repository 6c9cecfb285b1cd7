"""Print how many days some years and their Februaries have."""


def is_leap(year):
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def days_in_month(year, month):
    if month == 2:
        return 29 if is_leap(year) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def days_in_year(year):
    return sum(days_in_month(year, m) for m in range(1, 13))


for year in [1900, 1996, 2000, 2023, 2024, 2100, 2400]:
    print(f"{year}: february has {days_in_month(year, 2)} days, year has {days_in_year(year)}")
leap_count = sum(1 for y in range(1901, 2001) if is_leap(y))
print(f"leap years in the 20th century: {leap_count}")
