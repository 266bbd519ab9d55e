"""The Thrift processor: every failure of a call is answered, never by hanging up.

thriftpy2's own processor re-raises an exception the IDL does not declare for the method, which
drops the connection; this one maps it to a declared exception instead.
"""

from __future__ import annotations

import logging
from typing import Any

from thriftpy2.thrift import TApplicationException, TProcessor

from devstack.hbase.errors import HBaseError
from devstack.hbase.idl import hbase

logger = logging.getLogger(__name__)
IDL_ERRORS = (hbase.IOError, hbase.IllegalArgument, hbase.AlreadyExists)


class Processor(TProcessor):
    """A processor that answers every failure with a declared exception, never by hanging up.

    Store errors become the IDL exception HBase would raise (``IOError``, ``IllegalArgument``,
    ``AlreadyExists``); an unexpected exception becomes an ``IOError`` naming the call.
    """

    def process(self, iprot: Any, oprot: Any) -> None:
        api, seqid, result, call = self.process_in(iprot)
        if isinstance(result, TApplicationException):
            self.send_exception(oprot, api, result, seqid)
            return
        assert call is not None
        try:
            result.success = call()
        except TApplicationException as error:
            self.send_exception(oprot, api, error, seqid)
            return
        except Exception as error:
            idl_error = to_idl_error(api, error)
            if not _set_declared(result, idl_error):
                failure = TApplicationException(TApplicationException.INTERNAL_ERROR,
                                                idl_error.message)
                self.send_exception(oprot, api, failure, seqid)
                return
        if not result.oneway:
            self.send_result(oprot, api, result, seqid)


def to_idl_error(api: str, error: Exception) -> Any:
    """The IDL exception that reports ``error`` raised by the handler of ``api``."""
    if isinstance(error, IDL_ERRORS):
        return error
    if isinstance(error, HBaseError):
        logger.info("%s: %s", api, error)
        return getattr(hbase, error.thrift_name)(message=str(error))
    logger.exception("%s failed", api)
    return hbase.IOError(message=f"{api}: internal error {type(error).__name__}: {error}")


def _set_declared(result: Any, error: Any) -> bool:
    """Put ``error`` in the result field declared for its class, else in the ``IOError`` one."""
    declared = {spec[2]: spec[1] for spec in result.thrift_spec.values()
                if spec[1] != "success" and isinstance(spec[2], type)}
    field = declared.get(type(error))
    if field is None and hbase.IOError in declared:
        field = declared[hbase.IOError]
        error = error if isinstance(error, hbase.IOError) else hbase.IOError(message=error.message)
    if field is None:
        return False
    setattr(result, field, error)
    return True
