"""Reading one line of a CSV export."""


def split_fields(line):
    """The comma-separated fields of `line`. A field in double quotes may hold commas;
    the quotes are not part of the field."""
    return line.split(",")
