"""List a catalogue of books four per page."""

from helpers.paging import get_page, page_count

BOOKS = [
    "Dune", "Emma", "Ulysses", "Beloved", "Hamlet", "Walden",
    "Persuasion", "Middlemarch", "Frankenstein", "Dracula",
]
PER_PAGE = 4

pages = page_count(len(BOOKS), PER_PAGE)
print(f"{len(BOOKS)} books on {pages} pages")
for number in range(1, pages + 1):
    print(f"page {number}: {', '.join(get_page(BOOKS, number, PER_PAGE))}")
