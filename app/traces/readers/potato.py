"""Potato's item format: one JSON object per item, the id under `id_key`."""
from __future__ import annotations

from app.traces.trace import Item

NAME = "potato"
SHAPE = "an item object with its id under id_key"


def detect(record) -> bool:
    return isinstance(record, dict)


def to_item(record: dict, source: str, id_key: str, text_key: str, **_) -> Item:
    if id_key not in record or record[id_key] in (None, ""):
        raise ValueError(f'item has no "{id_key}" (item_properties.id_key); keys present: '
                         + ", ".join(map(str, list(record)[:12])))
    text = record.get(text_key, "")
    if isinstance(text, list):  # Potato dialogue items hold a list of turns
        text = "\n".join(map(str, text))
    gold = record.get("gold") if isinstance(record.get("gold"), dict) else None
    return Item(str(record[id_key]), record, source, NAME, "" if text is None else str(text), gold)
