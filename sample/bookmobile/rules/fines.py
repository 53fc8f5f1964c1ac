"""Due dates and late fees."""

from datetime import timedelta

from ..errors import InvalidReturnDateError
from .policies import LendingPolicy

STANDARD_POLICY = LendingPolicy()


def compute_due_date(loaned_on, lending_policy=STANDARD_POLICY):
    return loaned_on + timedelta(days=lending_policy.loan_period_days)


def compute_late_fee(due_on, returned_on, lending_policy=STANDARD_POLICY):
    """Late fee in cents: a daily rate after the grace period, up to a cap."""
    days_late = (returned_on - due_on).days - lending_policy.grace_period_days
    if days_late <= 0:
        return 0
    return min(days_late * lending_policy.daily_late_fee_cents, lending_policy.late_fee_cap_cents)


def count_loan_days(loaned_on, returned_on):
    if returned_on < loaned_on:
        raise InvalidReturnDateError(f"{returned_on} is before {loaned_on}")
    return (returned_on - loaned_on).days
