"""Reading one line of a CSV export."""


def split_fields(line):
    """The comma-separated fields of `line`. A field in double quotes may hold commas;
    the quotes are not part of the field."""
    fields, field, quoted = [], "", False
    for ch in line:
        if ch == '"':
            quoted = not quoted
        elif ch == "," and not quoted:
            fields.append(field)
            field = ""
        else:
            field += ch
    fields.append(field)
    return fields
