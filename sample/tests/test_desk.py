import unittest
from datetime import date

from bookmobile import CirculationDesk, LibraryPatron, MembershipTier, ShelfCatalog, TitleRecord
from bookmobile.audit import describe_for_audit
from bookmobile.errors import (
    BorrowingLimitReached,
    CopyUnavailableError,
    RenewalRefusedError,
    UnknownDeskActionError,
)
from bookmobile.rules import LendingPolicy

TIDE_TABLES = TitleRecord("978-0-00-000003-5", "Tide Tables for Beginners", "Wren Okafor", 2005)
LANTERN_MAKERS = TitleRecord("978-0-00-000004-2", "The Lantern Makers", "Pia Sandoval", 2019)
LOAN_DAY = date(2024, 5, 1)


def build_sample_desk():
    catalog = ShelfCatalog()
    catalog.shelve_copy("sci 3", TIDE_TABLES)
    catalog.shelve_copy("fic 8", LANTERN_MAKERS)
    catalog.shelve_copy("fic 9", LANTERN_MAKERS)
    policy = LendingPolicy(loan_period_days=14, grace_period_days=0, max_renewals=1,
                           daily_late_fee_cents=20, late_fee_cap_cents=500)
    desk = CirculationDesk(catalog, policy)
    desk.enroll_patron(LibraryPatron("C-1", "Marta Quill"))
    desk.enroll_patron(LibraryPatron("C-2", "Jon Reyes", MembershipTier.JUNIOR))
    return desk


class CheckoutTests(unittest.TestCase):
    def setUp(self):
        self.desk = build_sample_desk()

    def test_checkout_sets_due_date_and_marks_copy(self):
        loan_record = self.desk.checkout_copy("C-1", "SCI-3", LOAN_DAY)
        self.assertEqual(loan_record.due_on, date(2024, 5, 15))
        self.assertTrue(self.desk.shelf_catalog.locate_copy("SCI-3").on_loan)

    def test_copy_on_loan_cannot_be_lent_twice(self):
        self.desk.checkout_copy("C-1", "SCI-3", LOAN_DAY)
        with self.assertRaises(CopyUnavailableError):
            self.desk.checkout_copy("C-2", "SCI-3", LOAN_DAY)

    def test_junior_patron_hits_borrowing_limit(self):
        patron = self.desk.patrons_by_card["C-2"]
        patron.borrowing_limit = 1
        self.desk.checkout_copy("C-2", "FIC-8", LOAN_DAY)
        with self.assertRaises(BorrowingLimitReached):
            self.desk.checkout_copy("C-2", "FIC-9", LOAN_DAY)


class ReturnAndRenewTests(unittest.TestCase):
    def setUp(self):
        self.desk = build_sample_desk()
        self.desk.checkout_copy("C-1", "FIC-8", LOAN_DAY)

    def test_late_return_charges_patron(self):
        late_fee = self.desk.return_copy("FIC-8", date(2024, 5, 20))
        self.assertEqual(late_fee, 100)
        self.assertEqual(self.desk.patrons_by_card["C-1"].unpaid_fine_cents, 100)
        self.assertFalse(self.desk.shelf_catalog.locate_copy("FIC-8").on_loan)

    def test_renewal_moves_due_date_once(self):
        loan_record = self.desk.renew_loan("FIC-8", date(2024, 5, 10))
        self.assertEqual(loan_record.due_on, date(2024, 5, 24))
        with self.assertRaises(RenewalRefusedError):
            self.desk.renew_loan("FIC-8", date(2024, 5, 20))

    def test_overdue_loans_and_tally(self):
        self.desk.checkout_copy("C-1", "SCI-3", date(2024, 5, 10))
        overdue = self.desk.loan_ledger.overdue_loans(date(2024, 5, 20))
        self.assertEqual([r.shelf_code for r in overdue], ["FIC-8"])
        self.assertEqual(self.desk.loan_ledger.borrowing_tally()["C-1"], 2)


class DeskScriptTests(unittest.TestCase):
    def setUp(self):
        self.desk = build_sample_desk()

    def test_replay_desk_script_dispatches_by_name(self):
        results = self.desk.replay_desk_script(
            [
                ("checkout_copy", ("C-1", "SCI-3", LOAN_DAY)),
                ("renew_loan", ("SCI-3", date(2024, 5, 12))),
                ("return_copy", ("SCI-3", date(2024, 5, 30))),
            ]
        )
        self.assertEqual(results[-1], 80)

    def test_unknown_action_is_refused(self):
        with self.assertRaises(UnknownDeskActionError):
            self.desk.perform_desk_action("enroll_patron", LibraryPatron("C-9", "X"))

    def test_audit_trail_records_successful_actions(self):
        self.desk.checkout_copy("C-1", "SCI-3", LOAN_DAY)
        with self.assertRaises(CopyUnavailableError):
            self.desk.checkout_copy("C-2", "SCI-3", LOAN_DAY)
        self.assertEqual(self.desk.audit_trail, ["checkout: 'C-1', 'SCI-3', datetime.date(2024, 5, 1)"])

    def test_describe_for_audit_prefers_audit_label(self):
        patron = self.desk.patrons_by_card["C-1"]
        shelf_copy = self.desk.shelf_catalog.locate_copy("SCI-3")
        self.assertEqual(describe_for_audit(patron), "Marta Quill [C-1]")
        self.assertEqual(describe_for_audit(shelf_copy), "SCI-3 (Tide Tables for Beginners)")
        self.assertEqual(describe_for_audit(7), "7")


if __name__ == "__main__":
    unittest.main()
