package org.licensemanager.client;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The store: a folder where every {@code .lic} and {@code .json} file is a candidate (an offline file
 * a person copied there works), the fetched file is kept as {@code license.json}, and the client's
 * own notes (the server's time, the last confirmation) sit beside them, and so does the token of a
 * desktop sign-in ({@code desktop-token}, mode 0600).
 */
public final class LicenseStore {
    static final String FETCHED_FILE = "license.json";
    static final String SERVER_TIME_FILE = "server-time";
    static final String CONFIRMED_FILE = "confirmed.state";
    /** A clock set back that the server was not told of yet (sent as clockTamperedAt with the next request). */
    static final String CLOCK_TAMPERED_FILE = "clock-tampered";
    /** The access token of a desktop sign-in (RFC 8628), readable by its owner alone (0600). */
    static final String TOKEN_FILE = "desktop-token";

    private final Path directory;

    public LicenseStore(Path directory) {
        this.directory = directory;
    }

    public Path directory() {
        return directory;
    }

    /**
     * Where desktop software keeps its license files: the {@code licenses} folder in the application's
     * data folder (Windows %APPDATA%\app\licenses, macOS ~/Library/Application Support/app/licenses,
     * Linux $XDG_CONFIG_HOME/app/licenses or ~/.config/app/licenses).
     */
    public static Path defaultDirectory(String appName) {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        Path home = Path.of(System.getProperty("user.home"));
        if (os.contains("win")) {
            String appData = System.getenv("APPDATA");
            return (appData != null ? Path.of(appData) : home.resolve("AppData").resolve("Roaming")).resolve(appName).resolve("licenses");
        }
        if (os.contains("mac")) return home.resolve("Library").resolve("Application Support").resolve(appName).resolve("licenses");
        String config = System.getenv("XDG_CONFIG_HOME");
        return (config != null && !config.isEmpty() ? Path.of(config) : home.resolve(".config")).resolve(appName).resolve("licenses");
    }

    record StoredFile(String name, String text) {}

    List<StoredFile> list() throws IOException {
        List<StoredFile> files = new ArrayList<>();
        if (!Files.isDirectory(directory)) return files;
        try (Stream<Path> entries = Files.list(directory)) {
            for (Path path : (Iterable<Path>) entries::iterator) {
                String name = path.getFileName().toString();
                String lower = name.toLowerCase(Locale.ROOT);
                if (name.startsWith(".") || !(lower.endsWith(".lic") || lower.endsWith(".json")) || !Files.isRegularFile(path)) continue;
                try {
                    String text = Files.readString(path, StandardCharsets.UTF_8);
                    if (!text.isEmpty()) files.add(new StoredFile(name, text));
                } catch (IOException e) {
                    // unreadable or not UTF-8: not a license file of ours
                }
            }
        }
        return files;
    }

    String read(String name) {
        try {
            return Files.readString(directory.resolve(name), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return null;
        }
    }

    /** Written beside and renamed, so that a crash never leaves half a file. */
    void write(String name, String text) throws IOException {
        Files.createDirectories(directory);
        Path temporary = directory.resolve("." + name + "." + ProcessHandle.current().pid() + ".tmp");
        Files.writeString(temporary, text, StandardCharsets.UTF_8);
        try {
            Files.move(temporary, directory.resolve(name), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(temporary, directory.resolve(name), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /**
     * Like {@link #write}, for a secret: the file is created with mode 0600 before anything is written
     * to it, so it is never readable by others, not even for a moment (where the file system has POSIX
     * permissions; on Windows the user's profile folder's access list protects it).
     */
    void writeSecret(String name, String text) throws IOException {
        Files.createDirectories(directory);
        Path temporary = directory.resolve("." + name + "." + ProcessHandle.current().pid() + ".tmp");
        Files.deleteIfExists(temporary);
        Set<PosixFilePermission> ownerOnly = EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
        boolean posix;
        try {
            Files.createFile(temporary, PosixFilePermissions.asFileAttribute(ownerOnly));
            posix = true;
        } catch (UnsupportedOperationException e) {
            Files.createFile(temporary);
            posix = false;
        }
        try {
            // The umask may have taken bits away (never added any): exactly 0600.
            if (posix) Files.setPosixFilePermissions(temporary, ownerOnly);
            Files.writeString(temporary, text, StandardCharsets.UTF_8);
            try {
                Files.move(temporary, directory.resolve(name), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temporary, directory.resolve(name), StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temporary);
        }
    }

    void remove(String name) {
        try {
            Files.delete(directory.resolve(name));
        } catch (NoSuchFileException e) {
            // gone already
        } catch (IOException e) {
            // left behind: a file that no longer fits is ignored at the next read
        }
    }
}
