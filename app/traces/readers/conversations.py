"""Files of conversations, as the chat and AutoGen readers read them: a record holding a list of
messages is one item; records that are themselves messages ("loose" messages: a file that is
only a list, or JSON Lines, of messages) are together one item named after the file.

One loop for both formats; each gives what differs: how to tell a message, and how to build an
item from a list of messages and the record around them.
"""
from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

from app.project.problems import Problem
from app.traces.readers.context import Context, source_of, wrong_shape
from app.traces.trace import Item

# (messages, the record around them ({} for loose messages), item id, source, ctx, misread) -> Item;
# what is misread is added to `misread` as (message index, text)
BuildItem = Callable[[list, dict, str, str, Context, list], Item]


def read_conversations(records: list[tuple[Any, str]], ctx: Context, module: ModuleType,
                       is_message: Callable[[Any], bool], build: BuildItem) -> tuple[list[Item], list[Problem]]:
    """Items and problems of a file's records (`module` is the reader, for the wrong-shape error).

    A record without an id is named after the file (with its line or position when the file
    holds several); a misread message is a warning naming the record and the message."""
    items: list[Item] = []
    problems: list[Problem] = []
    loose: list = []
    loose_where: list[str] = []
    single = len(records) == 1 and records[0][1] == ""
    for record, where in records:
        if is_message(record):
            loose.append(record)
            loose_where.append(where)
            continue
        if not module.detect(record):
            problems.append(wrong_shape(ctx, where, module, record))
            continue
        item_id = record.get(ctx.id_key, record.get("id"))
        if item_id in (None, "") or isinstance(item_id, (dict, list)):
            item_id = ctx.path.stem if single else f"{ctx.path.stem}-{where.split()[-1]}"
        misread: list = []
        items.append(build(record["messages"], record, str(item_id), source_of(ctx.path, where), ctx, misread))
        problems.extend(ctx.problem(f"{where + ', ' if where else ''}messages[{i}]", text, "warning")
                        for i, text in misread)
    if loose:
        misread = []
        items.append(build(loose, {}, ctx.path.stem, str(ctx.path), ctx, misread))
        problems.extend(ctx.problem(loose_where[i] or "record", text, "warning") for i, text in misread)
    return items, problems
