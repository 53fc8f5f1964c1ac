import json
import tempfile
import unittest
from datetime import date
from pathlib import Path

from bookmobile.errors import InvalidReturnDateError, PolicyConfigError
from bookmobile.rules import (
    LendingPolicy,
    compute_due_date,
    compute_late_fee,
    count_loan_days,
    load_desk_actions,
    load_lending_policy,
)


class PolicyFileTests(unittest.TestCase):
    def test_shipped_policy_file_loads(self):
        policy = load_lending_policy()
        self.assertEqual(policy.loan_period_days, 21)
        self.assertEqual(policy.grace_period_days, 2)

    def test_keyword_overrides_win(self):
        policy = load_lending_policy(max_renewals=5)
        self.assertEqual(policy.max_renewals, 5)

    def test_unknown_setting_is_rejected(self):
        with tempfile.TemporaryDirectory() as scratch:
            policy_path = Path(scratch) / "policy.json"
            policy_path.write_text(
                json.dumps({"lending_policy": {"loan_period_weeks": 3}, "desk_actions": []}),
                encoding="utf-8",
            )
            with self.assertRaises(PolicyConfigError):
                load_lending_policy(policy_path)

    def test_desk_actions_are_listed(self):
        self.assertIn("renew_loan", load_desk_actions())


class FineArithmeticTests(unittest.TestCase):
    def setUp(self):
        self.policy = LendingPolicy(loan_period_days=14, grace_period_days=1,
                                    daily_late_fee_cents=30, late_fee_cap_cents=300)

    def test_due_date_adds_loan_period(self):
        self.assertEqual(compute_due_date(date(2024, 3, 1), self.policy), date(2024, 3, 15))

    def test_no_fee_within_grace_period(self):
        self.assertEqual(compute_late_fee(date(2024, 3, 15), date(2024, 3, 16), self.policy), 0)

    def test_fee_grows_daily_then_caps(self):
        due_on = date(2024, 3, 15)
        self.assertEqual(compute_late_fee(due_on, date(2024, 3, 19), self.policy), 90)
        self.assertEqual(compute_late_fee(due_on, date(2024, 6, 1), self.policy), 300)

    def test_count_loan_days_rejects_reversed_dates(self):
        self.assertEqual(count_loan_days(date(2024, 1, 1), date(2024, 1, 31)), 30)
        with self.assertRaises(InvalidReturnDateError):
            count_loan_days(date(2024, 1, 31), date(2024, 1, 1))


if __name__ == "__main__":
    unittest.main()
