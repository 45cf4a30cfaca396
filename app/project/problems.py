"""A problem found while reading a project, its data or its annotations."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    file: str
    where: str  # config path, item id, `line N` or `calls[3]`
    message: str
    level: str = "error"  # "error", "warning" (data read, but something skipped) or "ignored"

    def __str__(self) -> str:
        loc = f"{self.file}: {self.where}" if self.where else self.file
        tag = "" if self.level == "error" else f"[{self.level}] "
        return f"{tag}{loc}: {self.message}"


def errors(problems) -> list[Problem]:
    return [p for p in problems if p.level == "error"]
