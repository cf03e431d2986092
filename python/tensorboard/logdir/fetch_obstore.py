"""s3:// (and s3a://) logdirs listed and fetched through obstore (Rust's object_store) instead of s3fs:
the same recursive listing with sizes and the same whole-object and ranged GETs as `logdir.fetch`'s
fsspec path, run concurrently on one asyncio loop, without botocore's Python work per request.

Chosen when obstore is installed and the URL is s3://; `TB_OBJECT_STORE=fsspec` forces s3fs (and
`TB_OBJECT_STORE=obstore` requires obstore). Endpoint, region and credentials come from the settings
s3fs takes: the storage options (`key`, `secret`, `token`, `anon`, `endpoint_url`, `profile`,
`client_kwargs`, `config_kwargs`, ...) including fsspec's configuration (`FSSPEC_S3_ENDPOINT_URL`),
then `AWS_ENDPOINT_URL_S3`/`AWS_ENDPOINT_URL`, `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`/
`AWS_SESSION_TOKEN`, `AWS_REGION`/`AWS_DEFAULT_REGION`, then botocore's own chain (profiles,
SSO, container and instance roles). An option with no obstore equivalent is a ValueError naming it.
"""
from __future__ import annotations

import datetime
import json
import os
import threading
from typing import TYPE_CHECKING, Mapping

if TYPE_CHECKING:
    pass

MIN_VERSION = "0.12"  # the release whose API (S3Store, get_range_async, client options) this module uses
SWITCH = "TB_OBJECT_STORE"  # "fsspec": s3fs always; "obstore": obstore or an error; unset, "auto": obstore if installed
SCHEMES = ("s3", "s3a")

# s3fs options that change only how s3fs caches, buffers or writes, never what a read gets or who asks
IGNORED = frozenset({"skip_instance_cache", "use_listings_cache", "listings_expiry_time", "max_paths",
                     "default_block_size", "default_fill_cache", "default_cache_type", "cache_regions",
                     "max_concurrency", "fixed_upload_size", "version_aware", "local_expiry_check",
                     "asynchronous", "loop"})


def wanted(protocol: str) -> bool:
    """Whether `protocol`'s logdirs are read through obstore (see `SWITCH`)."""
    choice = os.environ.get(SWITCH, "auto").strip().lower() or "auto"
    if choice not in ("auto", "fsspec", "obstore"):
        raise ValueError(f"{SWITCH}={choice!r}: use 'fsspec', 'obstore' or 'auto' (obstore for s3:// when installed)")
    if choice == "fsspec" or protocol not in SCHEMES:
        return False
    try:
        import obstore
    except ImportError:
        if choice == "obstore":
            raise ImportError(f"{SWITCH}=obstore needs obstore: pip install 'obstore>={MIN_VERSION}'") from None
        return False
    found = getattr(obstore, "__version__", "0")
    if _release(found) < _release(MIN_VERSION):  # an older obstore lacks the API used here: s3fs reads
        if choice == "obstore":
            raise ImportError(f"{SWITCH}=obstore needs obstore {MIN_VERSION} or newer, not {found}")
        return False
    return True


def _release(version: str) -> tuple:
    """(major, minor) of a version string ('0.12.1' -> (0, 12))."""
    parts = [int(p) if p.isdigit() else 0 for p in version.split(".")[:2]]
    return tuple(parts + [0] * (2 - len(parts)))


def _unmapped(name: str) -> ValueError:
    return ValueError(f"storage option {name} has no equivalent in obstore, which reads s3:// logdirs here; "
                      f"set {SWITCH}=fsspec to read through s3fs, which takes it")


def _pop(mapping: dict, *names: str):
    """The first of `names` set in `mapping` (all of them removed)."""
    values = [mapping.pop(name, None) for name in names]
    return next((v for v in values if v is not None), None)


def s3_settings(options: Mapping, env: Mapping = os.environ) -> dict:
    """S3Store's settings from s3fs's storage options and the AWS variables, in botocore's order:
    {"config", "client_options", "retry_config", "credentials" ((key, secret, token) or None: botocore's
    chain), "profile", "region" (None: not configured)}."""
    opts = dict(options)
    client = dict(opts.pop("client_kwargs", None) or {})
    botocore_config = dict(opts.pop("config_kwargs", None) or {})
    config: dict = {}
    client_options: dict = {}
    retry: dict = {}
    key = _pop(opts, "key", "username") or _pop(client, "aws_access_key_id")
    secret = _pop(opts, "secret", "password") or _pop(client, "aws_secret_access_key")
    token = _pop(opts, "token") or _pop(client, "aws_session_token")
    if opts.pop("anon", False):
        config["skip_signature"] = True
    if opts.pop("requester_pays", False):
        config["request_payer"] = True
    profile = opts.pop("profile", None)
    endpoint = _pop(opts, "endpoint_url") or _pop(client, "endpoint_url")
    endpoint = endpoint or env.get("AWS_ENDPOINT_URL_S3") or env.get("AWS_ENDPOINT_URL")
    use_ssl = [value for value in (opts.pop("use_ssl", None), client.pop("use_ssl", None)) if value is not None]
    if not endpoint and False in use_ssl:
        raise _unmapped("use_ssl=False (without endpoint_url)")
    region = _pop(client, "region_name") or _pop(botocore_config, "region_name")
    region = region or env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION")
    verify = client.pop("verify", None)
    if verify is False:
        client_options["allow_invalid_certificates"] = True
    elif isinstance(verify, str):
        with open(verify, encoding="ascii") as bundle:
            client_options["root_certificate"] = bundle.read()
    retries, addressing = _botocore_config(botocore_config, endpoint, config, client_options, retry)
    left = [name for name in opts if name not in IGNORED]
    left += [f"client_kwargs[{name!r}]" for name in client]
    left += [f"config_kwargs[{name!r}]" for name in botocore_config]
    left += [f"config_kwargs['retries'][{name!r}]" for name in retries]
    left += [f"config_kwargs['s3'][{name!r}]" for name in addressing]
    if left:
        raise _unmapped(left[0])
    if endpoint:
        config["endpoint"] = config["aws_endpoint_url_s3"] = endpoint  # the latter: else AWS_ENDPOINT_URL_S3 wins
        if endpoint.startswith("http://"):
            client_options["allow_http"] = True
    credentials = _credentials(key, secret, token, profile, env)
    return {"config": config, "client_options": client_options, "retry_config": retry,
            "credentials": credentials, "profile": profile, "region": region}


def _botocore_config(botocore_config: dict, endpoint: str | None, config: dict, client_options: dict,
                     retry: dict) -> tuple[dict, dict]:
    """Moves s3fs's `config_kwargs` (botocore's Config) into obstore's settings; returns the retries and
    addressing options left unread (each an error for the caller to name)."""
    botocore_config.pop("max_pool_connections", None)  # obstore's pool grows as needed; batches bound concurrency
    signature = botocore_config.pop("signature_version", None)
    if signature is not None and str(signature).lower() not in ("s3v4", "v4"):
        if str(signature) != "UNSIGNED":  # botocore.UNSIGNED: anonymous requests
            raise _unmapped(f"config_kwargs['signature_version']={signature!r}")
        config["skip_signature"] = True
    timeout = botocore_config.pop("connect_timeout", None)
    if timeout is not None:
        client_options["connect_timeout"] = datetime.timedelta(seconds=float(timeout))
    retries = dict(botocore_config.pop("retries", None) or {})
    retries.pop("mode", None)
    attempts = _pop(retries, "total_max_attempts", "max_attempts")
    if attempts is not None:
        retry["max_retries"] = max(int(attempts) - 1, 0)
    addressing = dict(botocore_config.pop("s3", None) or {})
    style = addressing.pop("addressing_style", "auto")
    if style == "virtual" and endpoint:
        raise _unmapped("config_kwargs['s3']['addressing_style']='virtual' with endpoint_url")
    config["virtual_hosted_style_request"] = style == "virtual"
    return retries, addressing


def _credentials(key, secret, token, profile, env: Mapping) -> tuple | None:
    """(key, secret, token) given outright or by the AWS variables, in botocore's order; None: its chain."""
    if key or secret:
        if not (key and secret):
            raise ValueError("storage options give an S3 access key without its secret, or a secret without its key")
        return key, secret, token
    if profile is None and env.get("AWS_ACCESS_KEY_ID") and env.get("AWS_SECRET_ACCESS_KEY"):  # a profile
        # given as an option takes the place of the variables in botocore's chain
        return env["AWS_ACCESS_KEY_ID"], env["AWS_SECRET_ACCESS_KEY"], env.get("AWS_SESSION_TOKEN") or None
    return None


class _Static:
    """obstore's credential provider for credentials given outright (never refreshed)."""

    def __init__(self, key: str, secret: str, token: str | None):
        self._answer = {"access_key_id": key, "secret_access_key": secret, "token": token, "expires_at": None}

    def __call__(self) -> dict:
        return self._answer


class _Botocore:
    """obstore's credential provider on botocore's chain (profiles, SSO, container and instance roles),
    asked again every few minutes so credentials botocore refreshes stay current."""

    refresh = datetime.timedelta(minutes=5)

    def __init__(self, profile: str | None):
        import botocore.credentials
        import botocore.session

        session = botocore.session.Session(profile=profile)
        self._credentials = session.get_credentials()
        self.region = session.get_config_variable("region")
        if self._credentials is None:
            raise PermissionError("no AWS credentials found for s3:// (storage options key/secret, AWS_ACCESS_KEY_ID "
                                  "and AWS_SECRET_ACCESS_KEY, a profile, or anon=True for a public bucket)")
        self._expires = isinstance(self._credentials, botocore.credentials.RefreshableCredentials)

    def __call__(self) -> dict:
        frozen = self._credentials.get_frozen_credentials()
        expires = datetime.datetime.now(datetime.timezone.utc) + self.refresh if self._expires else None
        return {"access_key_id": frozen.access_key, "secret_access_key": frozen.secret_key, "token": frozen.token,
                "expires_at": expires}


_REGIONS: dict[tuple[str, str], str] = {}  # (host, bucket) -> region


def bucket_region(bucket: str, host: str = "s3.amazonaws.com", secure: bool = True) -> str | None:
    """The region of an AWS bucket, from the `x-amz-bucket-region` header S3 puts on any answer to a HEAD
    of the bucket (botocore follows the redirect of a wrong region; object_store does not); None if unknown."""
    if (host, bucket) not in _REGIONS:
        import http.client

        connection = (http.client.HTTPSConnection if secure else http.client.HTTPConnection)(host, timeout=10)
        try:
            connection.request("HEAD", f"/{bucket}")
            region = connection.getresponse().getheader("x-amz-bucket-region")
        except OSError:
            return None
        finally:
            connection.close()
        if not region:
            return None
        _REGIONS[host, bucket] = region
    return _REGIONS[host, bucket]


def _error(err: BaseException, where: str) -> OSError:
    """obstore's error as the OSError s3fs raises for it (FileNotFoundError, PermissionError, ...), with the
    first line of obstore's message (the rest is a debug dump)."""
    name, text = type(err).__name__, str(err)
    if isinstance(err, FileNotFoundError) or name == "NotFoundError" or "NoSuchBucket" in text:
        cls: type = FileNotFoundError
    elif name in ("PermissionDeniedError", "UnauthenticatedError") or "AccessDenied" in text:
        cls = PermissionError
    else:
        cls = type(err) if isinstance(err, OSError) else OSError
    try:
        return cls(f"{where}: {text.splitlines()[0] if text else name}")
    except TypeError:  # an OSError subclass that takes other arguments
        return OSError(f"{where}: {text.splitlines()[0] if text else name}")


class ObstoreFetcher:
    """Lists and fetches the objects of s3:// URLs with obstore: one S3Store per bucket, one settings."""

    def __init__(self, protocol: str, options: Mapping):
        self.protocol = protocol
        self._settings = s3_settings(options)
        self._stores: dict = {}
        self._lock = threading.Lock()
        credentials = self._settings["credentials"]
        if self._settings["config"].get("skip_signature"):
            self._provider = None
        elif credentials is not None:
            self._provider = _Static(*credentials)
        else:
            self._provider = _Botocore(self._settings["profile"])
            self._settings["region"] = self._settings["region"] or self._provider.region

    def _store(self, bucket: str):
        with self._lock:
            if bucket not in self._stores:
                from obstore.store import S3Store

                config = dict(self._settings["config"])
                region = self._settings["region"]
                if "endpoint" not in config:  # AWS itself: the bucket's own region, and its endpoint given
                    # outright (obstore would read AWS_ENDPOINT, a variable botocore ignores)
                    region = bucket_region(bucket) or region or "us-east-1"
                    host = f"s3.{region}.amazonaws.com"
                    config["endpoint"] = f"https://{bucket}.{host}" if config["virtual_hosted_style_request"] else \
                        f"https://{host}"
                config["region"] = region or "us-east-1"
                self._stores[bucket] = S3Store(bucket, config=config,
                                               client_options=self._settings["client_options"] or None,
                                               retry_config=self._settings["retry_config"] or None,
                                               credential_provider=self._provider)
            return self._stores[bucket]

    def _split(self, url: str) -> tuple[str, str]:
        bucket, _, key = url.split("://", 1)[-1].partition("/")
        return bucket, key

    def list(self, root: str) -> dict[str, int]:
        """{URL: size} of every object below `root` (a directory: keys under `root` + "/")."""
        import obstore

        bucket, prefix = self._split(root.rstrip("/"))
        found: dict[str, int] = {}
        try:
            for chunk in obstore.list(self._store(bucket), prefix or None, chunk_size=1000):
                for meta in chunk:
                    found[f"{self.protocol}://{bucket}/{meta['path']}"] = int(meta["size"])
        except Exception as err:  # obstore's errors are no OSErrors
            raise _error(err, f"listing {root}") from err
        return found

    def fetch(self, urls: list[str], starts: list[int], ends: list[int], ranged: bool) -> list:
        """The bytes of each URL (or the exception its GET raised, as an OSError), fetched at once:
        byte ranges [start, end) when `ranged`, else whole objects."""
        places = [self._split(url) for url in urls]
        stores = {bucket: self._store(bucket) for bucket, _ in places}  # made here, not on the loop
        gets = [self._get(url, stores[bucket], key, start, end, ranged)
                for url, (bucket, key), start, end in zip(urls, places, starts, ends)]
        return _run(_gather(gets))

    @staticmethod
    async def _get(url: str, store, key: str, start: int, end: int, ranged: bool):
        import obstore

        try:
            if not ranged:
                return bytes(await (await obstore.get_async(store, key)).bytes_async())
            if end <= start:
                return b""
            return bytes(await obstore.get_range_async(store, key, start=start, end=end))
        except Exception as err:
            raise _error(err, url) from err


async def _gather(gets: list) -> list:
    import asyncio

    return await asyncio.gather(*gets, return_exceptions=True)


def _run(coroutine):
    """Runs `coroutine` to its end on a loop of its own, in a thread that ends with it: callers may be in
    any thread, a notebook's running loop included, and no thread outlives the fetch (obstore's requests
    run on its own Rust runtime; the loop only awaits them)."""
    import asyncio  # here: importing the reader does not import asyncio

    outcome: dict = {}

    def run() -> None:
        try:
            outcome["value"] = asyncio.run(coroutine)
        except BaseException as err:  # pylint: disable=broad-except  (raised again in the caller)
            outcome["error"] = err

    thread = threading.Thread(target=run, name="tensorboard-obstore", daemon=True)
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


_FETCHERS: dict[str, ObstoreFetcher] = {}
_fetchers_lock = threading.Lock()
_KEPT = 8  # fetchers kept for reuse (their stores keep their connections), newest last


def fetcher_for(protocol: str, options: Mapping) -> ObstoreFetcher | None:
    """The obstore fetcher for `protocol` with s3fs's `options`, or None when fsspec reads it (see `wanted`).
    Fetchers are kept per settings, so reading the same store again reuses its connections."""
    if not wanted(protocol):
        return None
    names = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION", "AWS_DEFAULT_REGION",
             "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_PROFILE")
    key = json.dumps([protocol, options, [os.environ.get(name) for name in names]], sort_keys=True, default=repr)
    with _fetchers_lock:
        fetcher = _FETCHERS.pop(key, None)
    if fetcher is None:
        fetcher = ObstoreFetcher(protocol, options)
    with _fetchers_lock:
        _FETCHERS[key] = fetcher
        while len(_FETCHERS) > _KEPT:
            _FETCHERS.pop(next(iter(_FETCHERS)))
    return fetcher
