"""A small decorator that records desk actions in an audit trail."""

import functools

AUDIT_TRAIL_LENGTH = 200


def describe_for_audit(value):
    """Prefer an object's own audit_label(); fall back to repr()."""
    if hasattr(value, "audit_label"):
        return getattr(value, "audit_label")()
    return repr(value)


def audited_action(action_label):
    """Record every successful call of the decorated desk method.

    The desk instance must provide an ``audit_trail`` list. Failed calls are
    not recorded, so the trail only shows what actually happened.
    """

    def decorate(desk_method):
        @functools.wraps(desk_method)
        def run_and_record(desk, *args, **kwargs):
            outcome = desk_method(desk, *args, **kwargs)
            details = ", ".join(describe_for_audit(argument) for argument in args)
            desk.audit_trail.append(f"{action_label}: {details}")
            del desk.audit_trail[:-AUDIT_TRAIL_LENGTH]
            return outcome

        return run_and_record

    return decorate
