"""Paging arithmetic shared by every long list (cards, regions, turns)."""


def page_count(n: int, size: int) -> int:
    """Pages needed for n things, size per page; an empty list still has one (empty) page."""
    return max(1, -(-n // size))
