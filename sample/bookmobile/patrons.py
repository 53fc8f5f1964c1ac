"""Library members and the limits attached to their membership tier."""

from enum import Enum

from bookmobile.errors import BorrowingLimitReached, PatronBlockedError

MAX_UNPAID_FINE_CENTS = 500


class MembershipTier(Enum):
    JUNIOR = "junior"
    STANDARD = "standard"
    SCHOLAR = "scholar"


TIER_BORROWING_LIMITS = {
    MembershipTier.JUNIOR: 3,
    MembershipTier.STANDARD: 8,
    MembershipTier.SCHOLAR: 20,
}


class LibraryPatron:
    """A card holder who may borrow copies from the circulation desk."""

    def __init__(self, card_number, display_name, membership_tier=MembershipTier.STANDARD):
        self.card_number = card_number
        self.display_name = display_name
        self.membership_tier = membership_tier
        self.unpaid_fine_cents = 0
        self._borrowing_limit = TIER_BORROWING_LIMITS[membership_tier]

    @property
    def borrowing_limit(self):
        """How many copies this patron may hold at once."""
        return self._borrowing_limit

    @borrowing_limit.setter
    def borrowing_limit(self, new_limit):
        if new_limit < 0:
            raise ValueError("a borrowing limit cannot be negative")
        self._borrowing_limit = new_limit

    def audit_label(self):
        return f"{self.display_name} [{self.card_number}]"

    def charge_fine(self, fine_cents):
        self.unpaid_fine_cents += fine_cents

    def settle_fines(self, paid_cents):
        """Apply a payment and return any change owed back to the patron."""
        applied = min(paid_cents, self.unpaid_fine_cents)
        self.unpaid_fine_cents -= applied
        return paid_cents - applied

    def ensure_may_borrow(self, loans_held):
        if self.unpaid_fine_cents > MAX_UNPAID_FINE_CENTS:
            raise PatronBlockedError(self.card_number, "unpaid fines above the limit")
        if loans_held >= self.borrowing_limit:
            raise BorrowingLimitReached(self.card_number, "borrowing limit reached")
