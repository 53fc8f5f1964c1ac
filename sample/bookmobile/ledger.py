"""The loan ledger: open loans plus a bounded history of closed ones."""

from collections import Counter, deque
from dataclasses import dataclass
from datetime import date
from typing import Optional

from .errors import InvalidReturnDateError, RenewalRefusedError

CLOSED_LOAN_HISTORY_SIZE = 1000


@dataclass
class LoanRecord:
    shelf_code: str
    card_number: str
    loaned_on: date
    due_on: date
    renewals_used: int = 0
    returned_on: Optional[date] = None

    @property
    def is_open(self):
        return self.returned_on is None

    def days_overdue(self, as_of):
        return max(0, (as_of - self.due_on).days)


class LoanLedger:
    def __init__(self, history_size=CLOSED_LOAN_HISTORY_SIZE):
        self._open_loans = {}
        self.closed_loans = deque(maxlen=history_size)

    def open_loan(self, loan_record):
        if loan_record.shelf_code in self._open_loans:
            raise RenewalRefusedError(f"{loan_record.shelf_code} is already on loan")
        self._open_loans[loan_record.shelf_code] = loan_record
        return loan_record

    def find_open_loan(self, shelf_code):
        return self._open_loans.get(shelf_code)

    def close_loan(self, shelf_code, returned_on):
        loan_record = self._open_loans[shelf_code]
        if returned_on < loan_record.loaned_on:
            raise InvalidReturnDateError(
                f"{shelf_code} cannot come back before {loan_record.loaned_on}"
            )
        del self._open_loans[shelf_code]
        loan_record.returned_on = returned_on
        self.closed_loans.append(loan_record)
        return loan_record

    def loans_held_by(self, card_number):
        return [
            loan_record
            for loan_record in self._open_loans.values()
            if loan_record.card_number == card_number
        ]

    def overdue_loans(self, as_of):
        late = [r for r in self._open_loans.values() if r.days_overdue(as_of) > 0]
        return sorted(late, key=lambda loan_record: loan_record.due_on)

    def borrowing_tally(self):
        """How many loans each card has taken, open and closed together."""
        tally = Counter(r.card_number for r in self._open_loans.values())
        tally.update(r.card_number for r in self.closed_loans)
        return tally
