"""What of the furniture a page prints: the header and footer in force there, its own notes."""

from __future__ import annotations

import pytest
from rhwp_core.navigation import furniture_on_pages

# (kind, applies_to, page it is defined on)
ITEMS = [
    ("header", "both", 1),  # 0: every page from 1 ...
    ("footer", "both", 1),  # 1
    ("footnote", None, 2),  # 2
    ("header", "odd", 3),  # 3: ... until odd pages get their own from 3
    ("header", "both", None),  # 4: defined with no page of its own: on its predecessor's (3)
    ("footnote", None, 5),  # 5
]


@pytest.mark.parametrize(
    ("pages", "kept"),
    [
        ({1}, [0, 1]),
        ({2}, [0, 1, 2]),
        # Item 4 (both, from page 3) replaces 0 and 3 on page 3 and after.
        ({3}, [1, 4]),
        ({4}, [1, 4]),
        ({5}, [1, 4, 5]),
        ({1, 2}, [0, 1, 2]),
    ],
)
def test_a_page_prints_the_header_in_force_there_and_its_own_notes(pages: set[int], kept: list[int]) -> None:
    on = furniture_on_pages(ITEMS, frozenset(pages))
    assert [i for i, keep in enumerate(on) if keep] == kept


def test_odd_and_even_headers_each_hold_their_pages() -> None:
    items = [("header", "odd", 1), ("header", "even", 1), ("footer", "even", 4)]
    assert furniture_on_pages(items, frozenset({1})) == [True, False, False]
    assert furniture_on_pages(items, frozenset({2})) == [False, True, False]
    assert furniture_on_pages(items, frozenset({3})) == [True, False, False]
    # A footer defined on page 4 is not printed before it.
    assert furniture_on_pages(items, frozenset({2, 4})) == [False, True, True]
    assert furniture_on_pages([], frozenset({1})) == []
