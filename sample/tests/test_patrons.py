import unittest

from bookmobile import LibraryPatron, MembershipTier
from bookmobile.errors import BorrowingLimitReached, PatronBlockedError
from bookmobile.patrons import MAX_UNPAID_FINE_CENTS, TIER_BORROWING_LIMITS


class LibraryPatronTests(unittest.TestCase):
    def test_borrowing_limit_follows_tier(self):
        junior = LibraryPatron("C-100", "Ada", MembershipTier.JUNIOR)
        self.assertEqual(junior.borrowing_limit, TIER_BORROWING_LIMITS[MembershipTier.JUNIOR])

    def test_borrowing_limit_setter_validates(self):
        patron = LibraryPatron("C-101", "Bram")
        patron.borrowing_limit = 12
        self.assertEqual(patron.borrowing_limit, 12)
        with self.assertRaises(ValueError):
            patron.borrowing_limit = -1

    def test_settle_fines_returns_change(self):
        patron = LibraryPatron("C-102", "Cleo")
        patron.charge_fine(150)
        self.assertEqual(patron.settle_fines(200), 50)
        self.assertEqual(patron.unpaid_fine_cents, 0)

    def test_unpaid_fines_block_borrowing(self):
        patron = LibraryPatron("C-103", "Dov")
        patron.charge_fine(MAX_UNPAID_FINE_CENTS + 1)
        with self.assertRaises(PatronBlockedError):
            patron.ensure_may_borrow(loans_held=0)

    def test_limit_reached_is_a_kind_of_block(self):
        patron = LibraryPatron("C-104", "Esme", MembershipTier.JUNIOR)
        with self.assertRaises(BorrowingLimitReached) as caught:
            patron.ensure_may_borrow(loans_held=3)
        self.assertIsInstance(caught.exception, PatronBlockedError)
        self.assertEqual(caught.exception.card_number, "C-104")


if __name__ == "__main__":
    unittest.main()
