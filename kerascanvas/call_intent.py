"""The `configure_call` intent: a call's settings (training=, use_causal_mask=, ...) edited on the
canvas. The browser is untrusted, so its settings are checked here before Graph.configure_call sees
them: a few identifiers, each mapped to a JSON scalar (null takes a setting away)."""

from __future__ import annotations

import math
from typing import Any

from .text import check_text

MAX_SETTINGS_SENT = 16
MAX_SETTING_NAME = 64
MAX_SETTING_TEXT = 200


class SettingsError(ValueError):
    """Settings the canvas refuses (the widget answers with the message and changes nothing)."""


def checked_settings(settings: dict) -> dict[str, Any]:
    """`settings` as sent, checked: 1..16 identifiers mapped to bool, int, finite float, short
    text or null; SettingsError naming what is wrong otherwise."""
    if not 0 < len(settings) <= MAX_SETTINGS_SENT:
        raise SettingsError(f"'settings' must name 1 to {MAX_SETTINGS_SENT} call settings, got "
                            f"{len(settings)}.")
    return {_setting_name(k): _setting_value(k, v) for k, v in settings.items()}


def _setting_name(name: Any) -> str:
    if not (isinstance(name, str) and name.isidentifier() and len(name) <= MAX_SETTING_NAME):
        raise SettingsError(f"A call setting is named by an identifier (at most "
                            f"{MAX_SETTING_NAME} characters), got {name!r:.60}.")
    return name


def _setting_value(name: str, value: Any) -> Any:
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    if isinstance(value, str) and len(value) <= MAX_SETTING_TEXT:
        return check_text(value, f"Call setting {name}=")
    raise SettingsError(f"Call setting {name}= must be true/false, a number, text (at most "
                        f"{MAX_SETTING_TEXT} characters) or null, got {value!r:.60}.")
