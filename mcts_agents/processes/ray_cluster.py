"""Ray for the library's pools (``open_pool("ray")``: the arena's ``backend="ray"``, the
AlphaZero loop's): ``ray_session`` starts a local instance bound to the loopback address, or
joins a cluster in bounded time."""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import socket
from collections.abc import Iterator
from typing import Any

from mcts_agents.errors import InvalidOptionError, RayNotInstalledError

__all__ = ["RAY_CONNECT_SECONDS", "ray_session"]

logger = logging.getLogger(__name__)

#: How long a Ray cluster's address may take to accept a TCP connection (seconds).
RAY_CONNECT_SECONDS = 5.0
_RAY_WAIT = "RAY_gcs_server_port_wait_time_s"  # Ray's connection attempts (about 1 per second)


@contextlib.contextmanager
def ray_session(address: str | None = None) -> Iterator[Any]:
    """The ``ray`` module, initialised: a Ray already initialised in this process is used as it
    is (and left running); else the cluster at ``address`` is joined, or (``None``) a new local
    instance is started; either is shut down at the end.

    A local instance is bound to the loopback address: its node IP is 127.0.0.1, so its GCS,
    raylet, object manager and workers listen on 127.0.0.1 only (Ray's local-only mode, its
    default on Windows and macOS), and it starts no dashboard. A cluster is another matter: its
    nodes listen on their network interfaces on many ports (GCS, raylets, object managers,
    workers, the dashboard and its agents), and whoever reaches them can run code on every node
    (older Ray versions have no authentication at all; newer ones a cluster token,
    ``RAY_AUTH_MODE``): run a cluster only on a trusted, firewalled network.

    ``address`` is ``"host:port"`` (the head's GCS, port 6379 by default), ``"ray://host:port"``
    (Ray Client), ``"local"`` (as ``None``) or ``"auto"`` (Ray's lookup: ``RAY_ADDRESS``, else
    a cluster that ``ray start`` began on this machine). A bad one fails in bounded time with an
    ``InvalidOptionError`` naming it: nothing accepting connections at ``host:port`` within
    ``RAY_CONNECT_SECONDS`` (5 s); something that accepts but is no Ray head after a single
    attempt by Ray (about 40 s with Ray 2.x: ``RAY_gcs_server_port_wait_time_s`` is set to 1
    unless already set).
    """
    try:
        import ray
    except ImportError as error:
        raise RayNotInstalledError('backend="ray" needs Ray: pip install ".[ray]"') from error
    if ray.is_initialized():
        yield ray
        return
    if address is None or address == "local":
        _start_local_ray(ray)
    else:
        _join_ray(ray, address)
    try:
        yield ray
    finally:
        ray.shutdown()


def _start_local_ray(ray: Any) -> None:
    """A new local Ray instance whose node IP is 127.0.0.1. Ray replaces a loopback
    ``_node_ip_address`` with the machine's address unless its local-only switch is off
    (``ENABLE_RAY_CLUSTER``, set by ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER``), so it is turned off
    while the instance starts."""
    try:
        constants: Any = importlib.import_module("ray._private.ray_constants")
    except ImportError:
        constants = None
    saved = getattr(constants, "ENABLE_RAY_CLUSTER", None)
    if saved is not None:
        constants.ENABLE_RAY_CLUSTER = False
    try:
        ray.init(address="local", include_dashboard=False, _node_ip_address="127.0.0.1")
    finally:
        if saved is not None:
            constants.ENABLE_RAY_CLUSTER = saved
    node = ray.util.get_node_ip_address()
    if node not in ("127.0.0.1", "::1"):
        logger.warning("the local Ray instance listens on %s, not on 127.0.0.1 only", node)


def _join_ray(ray: Any, address: str) -> None:
    """Join the cluster at ``address``, in bounded time (see ``ray_session``)."""
    if not isinstance(address, str) or not address:
        raise InvalidOptionError(f"address must be a Ray address 'host:port', got {address!r}")
    if address != "auto":
        host, port = _host_port(address)
        hosts = [host]
        if host in ("localhost", "127.0.0.1", "::1"):  # Ray dials the machine's address then
            with contextlib.suppress(Exception):
                hosts.append(ray.util.get_node_ip_address())
        errors = []
        for candidate in hosts:
            try:
                socket.create_connection((candidate, port), timeout=RAY_CONNECT_SECONDS).close()
                break
            except OSError as error:
                errors.append(f"{candidate}:{port}: {error}")
        else:
            raise InvalidOptionError(
                f"address={address!r}: nothing accepted a connection within "
                f"{RAY_CONNECT_SECONDS:g} s ({'; '.join(errors)}); is a Ray head node running "
                "there (ray start --head)?"
            )
    added = _RAY_WAIT not in os.environ
    if added:
        os.environ[_RAY_WAIT] = "1"
    try:
        ray.init(address=address)
    except ConnectionError as error:
        raise InvalidOptionError(
            f"address={address!r}: Ray could not join a cluster there ({error})"
        ) from error
    finally:
        if added:
            os.environ.pop(_RAY_WAIT, None)


def _host_port(address: str) -> tuple[str, int]:
    """``(host, port)`` of ``"host:port"``, ``"[v6]:port"`` or ``"ray://host:port"``."""
    client = address.startswith("ray://")
    rest = (address.split("://", 1)[1] if "://" in address else address).rstrip("/")
    if rest.startswith("["):  # [v6] or [v6]:port
        host, _, port = rest[1:].partition("]")
        port = port[1:] if port.startswith(":") else port
    elif rest.count(":") == 1:
        host, port = rest.split(":")
    else:  # a name, an IPv4 address or a bare IPv6 address: the default port
        host, port = rest, ""
    port = port or ("10001" if client else "6379")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise InvalidOptionError(
            f"address={address!r} is not a Ray address: expected 'host:port' or "
            "'ray://host:port' (port 1..65535)"
        )
    return host, int(port)
