"""The circulation desk ties catalog, patrons, ledger and policy together."""

from bookmobile.errors import (
    CopyUnavailableError,
    InvalidReturnDateError,
    RenewalRefusedError,
    UnknownDeskActionError,
)
from bookmobile.rules import (
    compute_due_date,
    compute_late_fee,
    load_desk_actions,
    load_lending_policy,
)

from .audit import audited_action
from .ledger import LoanLedger, LoanRecord


class CirculationDesk:
    def __init__(self, shelf_catalog, lending_policy=None):
        self.shelf_catalog = shelf_catalog
        self.lending_policy = lending_policy or load_lending_policy()
        self.loan_ledger = LoanLedger()
        self.patrons_by_card = {}
        self.audit_trail = []
        self.offered_actions = tuple(load_desk_actions())

    def enroll_patron(self, patron):
        self.patrons_by_card[patron.card_number] = patron
        return patron

    @audited_action("checkout")
    def checkout_copy(self, card_number, shelf_code, on_day):
        patron = self.patrons_by_card[card_number]
        shelf_copy = self.shelf_catalog.locate_copy(shelf_code)
        if shelf_copy.on_loan:
            raise CopyUnavailableError(shelf_copy.shelf_code, "already on loan")
        if not shelf_copy.condition.is_lendable:
            raise CopyUnavailableError(shelf_copy.shelf_code, "withdrawn from lending")
        patron.ensure_may_borrow(len(self.loan_ledger.loans_held_by(card_number)))
        loan_record = LoanRecord(
            shelf_code=shelf_copy.shelf_code,
            card_number=card_number,
            loaned_on=on_day,
            due_on=compute_due_date(on_day, self.lending_policy),
        )
        self.loan_ledger.open_loan(loan_record)
        shelf_copy.on_loan = True
        return loan_record

    @audited_action("return")
    def return_copy(self, shelf_code, on_day):
        """Close the loan and return the late fee charged, in cents."""
        shelf_copy = self.shelf_catalog.locate_copy(shelf_code)
        if self.loan_ledger.find_open_loan(shelf_copy.shelf_code) is None:
            raise CopyUnavailableError(shelf_copy.shelf_code, "not currently on loan")
        loan_record = self.loan_ledger.close_loan(shelf_copy.shelf_code, on_day)
        shelf_copy.on_loan = False
        late_fee = compute_late_fee(loan_record.due_on, on_day, self.lending_policy)
        if late_fee:
            self.patrons_by_card[loan_record.card_number].charge_fine(late_fee)
        return late_fee

    @audited_action("renew")
    def renew_loan(self, shelf_code, on_day):
        shelf_copy = self.shelf_catalog.locate_copy(shelf_code)
        loan_record = self.loan_ledger.find_open_loan(shelf_copy.shelf_code)
        if loan_record is None:
            raise RenewalRefusedError(f"{shelf_copy.shelf_code} is not on loan")
        if on_day < loan_record.loaned_on:
            raise InvalidReturnDateError(f"renewal of {shelf_copy.shelf_code} predates the loan")
        if loan_record.renewals_used >= self.lending_policy.max_renewals:
            raise RenewalRefusedError(f"{shelf_copy.shelf_code} has no renewals left")
        loan_record.renewals_used += 1
        loan_record.due_on = compute_due_date(on_day, self.lending_policy)
        return loan_record

    def perform_desk_action(self, action_name, *arguments):
        """Run one desk action chosen by name, as listed in the policy file."""
        if action_name not in self.offered_actions or not hasattr(self, action_name):
            raise UnknownDeskActionError(action_name)
        desk_handler = getattr(self, action_name)
        return desk_handler(*arguments)

    def replay_desk_script(self, script_steps):
        """Run (action_name, arguments) pairs in order and collect the results."""
        return [
            self.perform_desk_action(action_name, *arguments)
            for action_name, arguments in script_steps
        ]
