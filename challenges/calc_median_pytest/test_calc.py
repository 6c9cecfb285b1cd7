import pytest

from calc import clamp, mean, median, spread


def test_mean():
    assert mean([1, 2, 3, 4]) == 2.5


def test_median_odd():
    assert median([5, 1, 3]) == 3


def test_median_even():
    assert median([4, 1, 3, 2]) == 2.5


def test_median_two():
    assert median([10, 20]) == 15


def test_median_empty():
    with pytest.raises(ValueError):
        median([])


def test_spread():
    assert spread([3, 9, -2]) == 11


def test_clamp():
    assert clamp(15, 0, 10) == 10
    assert clamp(-3, 0, 10) == 0
    assert clamp(4, 0, 10) == 4
