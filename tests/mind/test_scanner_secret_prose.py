"""Credentials in prose and the provider formats of ``mind/trust/_secret_prose.py``.

Every value here is made up for this test; each family gets ordinary notes that name a
credential without giving one, which must stay clean.
"""

from __future__ import annotations

import pytest

from persona_mind.mind import scan
from persona_mind.mind.trust._normalize import plain
from persona_mind.mind.trust._secret_prose import prose_credential

SECRETS = [
    ("quoted-passphrase", "The wifi passphrase is 'seven orange kites at dawn'."),
    ("quoted-passphrase", 'restic repository password = "tall ships sail quietly 42"'),
    ("quoted-passphrase", "unlock it with the key passphrase 'lemon tree river 8'"),
    ("credential-in-prose", "the staging pass is Tulip#4471 for now"),
    ("login-and-password", "Login for the billing portal: j.doe / Rk8!mQz2pL"),
    ("login-and-password", "our shared account: build@corp.example / Maple$Road$88"),
    ("pin-or-app-password", "my bank PIN, in case I forget, is 50917"),
    ("pin-or-app-password", "the mail app password is qwer tyui opas dfgh"),
    ("otp-seed", "TOTP seed for the staging admin: KRSXG5CTMVRXEZLU"),
    ("provider-format", "A3-Q7WZ2K-M4N8P6R2T9V-B5C7D-E3F9G-H2J6K"),
    ("provider-format", 'export BUNDLE_GEMS__EXAMPLE__COM="ci-bot:9f8e7d6c5b4a"'),
    ("provider-format", 'payments_api_key = "3f9c2b7e-8d41-4a6b-9e0f-71c5d2a8b4e3"'),
    ("provider-format", "DEPLOY_TOKEN=kq93JfLw0Pz7Xc2Vb8Nm4Rt6"),
]

BENIGN = [
    "The passphrase must be 'at least four random words'.",
    "password reset lives at @app.route('/reset-password', methods=['POST'])",
    "The login page shows user / password fields side by side.",
    "Connect the LED to pin 13 and the button to pin 2.",
    "Use an app password instead of the account password for SMTP.",
    "Enable TOTP for every admin account before the audit.",
    "The template key is A3-XXXXXX-XXXXXXXXXXX-XXXXX-XXXXX-XXXXX.",
    'idempotency_key = "3f9c2b7e-8d41-4a6b-9e0f-71c5d2a8b4e3"',
    "DATABRICKS_TOKEN=dapi1234567890abcdef1234567890ab in the docs is a placeholder",
    "my pass was rejected twice, so I reset it",
]


@pytest.mark.parametrize(("rule", "text"), SECRETS)
def test_credentials_in_prose_are_secrets(rule: str, text: str) -> None:
    kept = plain(text)
    assert prose_credential(kept, kept.casefold()) == rule
    hits = scan(text)
    assert hits
    assert hits[0].category == "secret"


@pytest.mark.parametrize("text", BENIGN)
def test_descriptions_of_credentials_stay_clean(text: str) -> None:
    kept = plain(text)
    assert prose_credential(kept, kept.casefold()) is None, text
