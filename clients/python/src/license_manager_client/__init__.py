"""License Manager client for Python desktop software: fetch, verify (Ed25519), store and refresh
the signed license file of this machine, offline until it expires, with trusted time; updates for
entitled licenses; desktop sign-in of named users. See README.md."""

from .client import DEFAULT_CLOCK_TOLERANCE, LicenseClient, LicenseStatus, refresh_due_at
from .files import InvalidLicenseFile, LicenseFile, PublicKey, feature_value, has_feature, license_file_tag, metadata, parse_license_file, verify_license_file, verify_server_time
from .signin import DeviceCode, SignInError, authorize_device, poll_device_token, sign_out
from .fingerprint import machine_fingerprint, operating_system_machine_id
from .store import DirectoryStore, MemoryStore
from .updates import NewerRelease, Release, UpdateArtifact, UpdateError, UpdateInfo, check_for_update, download_update

__all__ = [
    "DEFAULT_CLOCK_TOLERANCE",
    "DeviceCode",
    "DirectoryStore",
    "InvalidLicenseFile",
    "LicenseClient",
    "LicenseFile",
    "LicenseStatus",
    "MemoryStore",
    "NewerRelease",
    "PublicKey",
    "Release",
    "SignInError",
    "UpdateArtifact",
    "UpdateError",
    "UpdateInfo",
    "authorize_device",
    "check_for_update",
    "download_update",
    "feature_value",
    "has_feature",
    "metadata",
    "license_file_tag",
    "machine_fingerprint",
    "operating_system_machine_id",
    "parse_license_file",
    "poll_device_token",
    "refresh_due_at",
    "sign_out",
    "verify_license_file",
    "verify_server_time",
]
__version__ = "1.0.0"
