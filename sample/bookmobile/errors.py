"""Exception hierarchy for the circulation desk.

Every error raised on purpose by bookmobile derives from LendingError, so
callers can catch the whole family with a single except clause.
"""


class LendingError(Exception):
    """Base class for every error raised by bookmobile."""


class CatalogLookupError(LendingError):
    """A shelf code is malformed or does not name a shelved copy."""

    def __init__(self, shelf_code):
        super().__init__(f"no shelved copy matches {shelf_code!r}")
        self.shelf_code = shelf_code


class CopyUnavailableError(LendingError):
    """The copy exists but cannot be lent right now."""

    def __init__(self, shelf_code, reason):
        super().__init__(f"copy {shelf_code} is unavailable: {reason}")
        self.shelf_code = shelf_code
        self.reason = reason


class PatronBlockedError(LendingError):
    """The patron may not borrow until something is sorted out."""

    def __init__(self, card_number, reason):
        super().__init__(f"patron {card_number} is blocked: {reason}")
        self.card_number = card_number
        self.reason = reason


class BorrowingLimitReached(PatronBlockedError):
    """The patron already holds as many copies as their tier allows."""


class RenewalRefusedError(LendingError):
    """A loan cannot be renewed (too many renewals, or already returned)."""


class InvalidReturnDateError(LendingError):
    """A return or renewal is dated before the loan started."""


class PolicyConfigError(LendingError):
    """The lending policy file names a setting that does not exist."""


class UnknownDeskActionError(LendingError):
    """A scripted desk step names an action the desk does not offer."""

    def __init__(self, action_name):
        super().__init__(f"the desk has no action called {action_name!r}")
        self.action_name = action_name
