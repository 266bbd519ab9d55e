"""Related managers and related objects: what an app above contributes to a class below it.

Django's ``ForeignKey`` gives the model it points at a reverse manager (``author.book_set``)
although that model's app never imports the one declaring the key. The stores here do the same:
the graph gives the content's ``User`` a ``followers`` manager, the feed gives it a ``feed``,
each in its own ``managers`` module, when its app is ready. The class below names them for the
type checker only (under ``TYPE_CHECKING``), so editors complete ``pinner.followers.count()``.

>>> contribute([User], "followers", Related(Followers.of))
>>> ada.followers.count()
3
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Generic, TypeVar, overload

M = TypeVar("M")
Obj = TypeVar("Obj")


class Named:
    """A descriptor that knows the attribute name it was given."""

    name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name


class Related(Named, Generic[M]):
    """A manager built per instance: ``instance.name`` is ``make(instance)``. Building one does
    no I/O; its methods do."""

    def __init__(self, make: Callable[[Any], M]) -> None:
        self.make = make

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> Related[M]: ...

    @overload
    def __get__(self, instance: object, owner: type | None = None) -> M: ...

    def __get__(self, instance: object | None, owner: type | None = None) -> M | Related[M]:
        return self if instance is None else self.make(instance)


class ClassManager(Named, Generic[M]):
    """A manager of a class as a whole (``Pin.objects``): reached through the class only, as
    Django's ``Manager`` is."""

    def __init__(self, manager: M) -> None:
        self.manager = manager

    def __get__(self, instance: object | None, owner: type | None = None) -> M:
        if instance is not None:
            raise AttributeError(f"{self.name} is reached through the class, not an instance "
                                 f"(type(obj).{self.name})")
        return self.manager


class RelatedObject(Named, Generic[Obj]):
    """An object an instance names by ID (``pin.board`` from ``pin.board_id``), loaded on first
    use and kept on the instance. :func:`prefetch` loads it for many instances at once, as
    Django's ``prefetch_related`` does, so a template looping ``pin.board.name`` makes no
    query per pin."""

    def __init__(self, id_attr: str, load_one: Callable[[int], Obj],
                 load_many: Callable[[Iterable[int]], Mapping[int, Obj]]) -> None:
        self.id_attr, self.load_one, self.load_many = id_attr, load_one, load_many

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> RelatedObject[Obj]: ...

    @overload
    def __get__(self, instance: object, owner: type | None = None) -> Obj: ...

    def __get__(self, instance: object | None, owner: type | None = None,
                ) -> Obj | RelatedObject[Obj]:
        if instance is None:
            return self
        found = self.load_one(getattr(instance, self.id_attr))
        vars(instance)[self.name] = found  # the instance's own attribute hides this descriptor
        return found

    def prefetch(self, instances: Iterable[object]) -> None:
        """Load the object of each instance not holding it yet, with ONE ``load_many``."""
        waiting = [instance for instance in instances if self.name not in vars(instance)]
        found = self.load_many({getattr(instance, self.id_attr) for instance in waiting})
        for instance in waiting:
            if (related := found.get(getattr(instance, self.id_attr))) is not None:
                vars(instance)[self.name] = related


def contribute(classes: Iterable[type], name: str, value: object) -> None:
    """Give each of ``classes`` the attribute ``name`` (a manager descriptor or a method)."""
    for cls in classes:
        setattr(cls, name, value)
        if hasattr(value, "__set_name__"):
            value.__set_name__(cls, name)


def prefetch(instances: Iterable[Obj], *names: str) -> list[Obj]:
    """Load the related objects ``names`` of every instance, one batch per name; returns the
    instances as a list.

    >>> pins = prefetch(board.pins.page(limit=25), "board", "pinner")
    """
    items = list(instances)
    for name in names:
        for cls in {type(item) for item in items}:
            related = getattr(cls, name, None)
            if not isinstance(related, RelatedObject):
                raise AttributeError(f"{cls.__name__}.{name} is not a related object")
            related.prefetch([item for item in items if type(item) is cls])
    return items
