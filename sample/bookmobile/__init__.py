"""bookmobile: a small circulation system for a travelling library.

Shelve copies in a ShelfCatalog, enroll each LibraryPatron at a
CirculationDesk, then lend, renew and take back copies by shelf code.
"""

from .catalog import CopyCondition, ShelfCatalog, ShelfCopy, TitleRecord
from .desk import CirculationDesk
from .errors import (
    BorrowingLimitReached,
    CatalogLookupError,
    CopyUnavailableError,
    LendingError,
    PatronBlockedError,
    RenewalRefusedError,
)
from .ledger import LoanLedger, LoanRecord
from .patrons import LibraryPatron, MembershipTier
from .rules import LendingPolicy, load_lending_policy

__version__ = "0.4.0"

__all__ = [
    "BorrowingLimitReached",
    "CatalogLookupError",
    "CirculationDesk",
    "CopyCondition",
    "CopyUnavailableError",
    "LendingError",
    "LendingPolicy",
    "LibraryPatron",
    "LoanLedger",
    "LoanRecord",
    "MembershipTier",
    "PatronBlockedError",
    "RenewalRefusedError",
    "ShelfCatalog",
    "ShelfCopy",
    "TitleRecord",
    "load_lending_policy",
]
