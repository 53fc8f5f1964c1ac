"""Lending rules: policy settings and the arithmetic of due dates and fines."""

from .fines import compute_due_date, compute_late_fee, count_loan_days
from .policies import LendingPolicy, load_desk_actions, load_lending_policy

__all__ = [
    "LendingPolicy",
    "compute_due_date",
    "compute_late_fee",
    "count_loan_days",
    "load_desk_actions",
    "load_lending_policy",
]
