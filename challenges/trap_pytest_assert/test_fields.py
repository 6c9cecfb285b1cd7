from fields import split_fields


def test_plain_fields():
    assert split_fields("a,b,c") == ["a", "b", "c"]


def test_empty_fields():
    assert split_fields("a,,c") == ["a", "", "c"]


def test_quoted_fields_keep_their_commas():
    assert split_fields('7,"Smith, Jane","London, UK"') == ["7", "Smith, Jane", "London, UK"]
