"""Lending policy settings, read from the JSON file shipped in data/."""

import json
from dataclasses import dataclass, fields
from pathlib import Path

from ..errors import PolicyConfigError

POLICY_DATA_FILE = Path(__file__).resolve().parent.parent / "data" / "lending_policy.json"


@dataclass(frozen=True)
class LendingPolicy:
    loan_period_days: int = 21
    grace_period_days: int = 0
    max_renewals: int = 2
    daily_late_fee_cents: int = 25
    late_fee_cap_cents: int = 1000


def read_policy_document(policy_path=None):
    path = Path(policy_path) if policy_path is not None else POLICY_DATA_FILE
    with path.open(encoding="utf-8") as policy_file:
        return json.load(policy_file)


def load_lending_policy(policy_path=None, **overrides):
    """Build a LendingPolicy from the policy file; keyword overrides win."""
    settings = dict(read_policy_document(policy_path)["lending_policy"])
    settings.update(overrides)
    known_settings = {policy_field.name for policy_field in fields(LendingPolicy)}
    unknown_settings = sorted(set(settings) - known_settings)
    if unknown_settings:
        raise PolicyConfigError(f"unknown policy settings: {', '.join(unknown_settings)}")
    return LendingPolicy(**settings)


def load_desk_actions(policy_path=None):
    """Names of the CirculationDesk methods that scripts may call."""
    return list(read_policy_document(policy_path)["desk_actions"])
