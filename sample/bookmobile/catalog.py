"""The shelf catalog: which titles the library owns and where each copy sits."""

import re
from collections import defaultdict
from dataclasses import dataclass
from enum import Enum

from .errors import CatalogLookupError

SHELF_CODE_PATTERN = re.compile(r"^[A-Z]{2,4}-\d{1,4}(?:\.\d{1,3})?$")
DEFAULT_SHELF_PREFIX = "GEN"


class CopyCondition(Enum):
    """Physical state of a single copy, as recorded by the shelving staff."""

    PRISTINE = "pristine"
    WORN = "worn"
    DAMAGED = "damaged"
    WITHDRAWN = "withdrawn"

    @property
    def is_lendable(self):
        return self is not CopyCondition.WITHDRAWN


@dataclass(frozen=True)
class TitleRecord:
    """Bibliographic facts shared by every copy of one edition."""

    isbn: str
    heading: str
    author_name: str
    publication_year: int


@dataclass
class ShelfCopy:
    """One physical copy of a title, identified by its shelf code."""

    shelf_code: str
    title_record: TitleRecord
    condition: CopyCondition = CopyCondition.PRISTINE
    on_loan: bool = False

    def audit_label(self):
        return f"{self.shelf_code} ({self.title_record.heading})"


class ShelfCatalog:
    """All shelved copies, indexed by normalized shelf code."""

    def __init__(self):
        self._copies_by_code = {}

    def __len__(self):
        return len(self._copies_by_code)

    @staticmethod
    def normalize_shelf_code(raw_code):
        """Turn user input such as ' fic 12 ' into the canonical 'FIC-12'.

        A bare number is filed under DEFAULT_SHELF_PREFIX.
        """
        cleaned = "-".join(raw_code.strip().upper().split())
        if cleaned.isdigit():
            cleaned = f"{DEFAULT_SHELF_PREFIX}-{cleaned}"
        if not SHELF_CODE_PATTERN.match(cleaned):
            raise CatalogLookupError(raw_code)
        return cleaned

    @classmethod
    def from_title_rows(cls, title_rows):
        """Build a catalog from plain dictionaries, e.g. rows of a spreadsheet."""
        catalog = cls()
        for row in title_rows:
            record = TitleRecord(
                isbn=row["isbn"],
                heading=row["heading"],
                author_name=row["author_name"],
                publication_year=int(row["publication_year"]),
            )
            condition = CopyCondition(row.get("condition", "pristine"))
            catalog.shelve_copy(row["shelf_code"], record, condition)
        return catalog

    def shelve_copy(self, shelf_code, title_record, condition=CopyCondition.PRISTINE):
        code = self.normalize_shelf_code(shelf_code)
        shelf_copy = ShelfCopy(code, title_record, condition)
        self._copies_by_code[code] = shelf_copy
        return shelf_copy

    def locate_copy(self, shelf_code):
        code = self.normalize_shelf_code(shelf_code)
        try:
            return self._copies_by_code[code]
        except KeyError:
            raise CatalogLookupError(shelf_code) from None

    def available_copies_of(self, isbn):
        return [
            shelf_copy
            for shelf_copy in self._copies_by_code.values()
            if shelf_copy.title_record.isbn == isbn
            and not shelf_copy.on_loan
            and shelf_copy.condition.is_lendable
        ]

    def shelf_codes_by_author(self):
        grouped = defaultdict(list)
        for code, shelf_copy in sorted(self._copies_by_code.items()):
            grouped[shelf_copy.title_record.author_name].append(code)
        return dict(grouped)
