"""``pinner.home``: the smart home feed as a manager, over :mod:`feed.smart.service` and the
pools' rebuild (:mod:`feed.smart.intake`).

>>> page = ada.home.page()
>>> page.outcome, page.new, [pin.title for pin in page]
('chunk', 12, ['Leek quiche', ...])
>>> ada.home.count()
212
>>> ada.home.rebuild()
{'following': 140, 'repins': 0, 'related': 36, 'interests': 50}
"""

from __future__ import annotations

from feed.explain import Explanation
from feed.smart import intake, service
from feed.smart.explain import explain_home
from feed.smart.service import HomePage
from pins.domain import Pin
from pins.managers import by_pinner, contribute_to_pinners


class HomeFeed:
    """New pins the generator chooses at each visit, then what was shown before."""

    def __init__(self, user_id: int) -> None:
        self.user_id = user_id

    def page(self, limit: int | None = None, after: str | None = None) -> HomePage:
        """A first page (no ``after``) is a visit: the generator's chunk, then what was shown
        before; a later page reads what was shown only."""
        return service.home_page(self.user_id, limit, after)

    def count(self) -> int:
        """The pins the feed holds now: what earlier visits showed (the materialized feed)."""
        return service.shown_count(self.user_id)

    def explain(self, pin: Pin | int) -> Explanation:
        """Why the pin is, or is not, on this Home (:mod:`feed.smart.explain`)."""
        return explain_home(self.user_id, pin if isinstance(pin, int) else pin.id)

    def rebuild(self) -> dict[str, int]:
        """Refill the pinner's pools from the graph and recent pins; each pool's size: for
        operators."""
        return intake.rebuild(self.user_id)


contribute_to_pinners("home", by_pinner(HomeFeed))
