package org.licensemanager.client;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A stable machine id per product: the first 32 hex digits (upper case) of SHA-256 over
 * "{@code <product>:<the operating system's machine id>}" (Linux /etc/machine-id, Windows
 * MachineGuid, macOS IOPlatformUUID), the same id every client of the License Manager gives; the raw
 * id never leaves the machine and two products get unrelated ids. See the README for where it is not
 * stable (cloned virtual machines, containers) and how to supply one's own.
 */
public final class MachineFingerprint {
    private MachineFingerprint() {}

    public static String of(String product) throws IOException {
        return hash(product, systemMachineId());
    }

    static String hash(String product, String rawId) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest((product + ":" + rawId.strip()).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().withUpperCase().formatHex(digest, 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The operating system's own machine id, trimmed. */
    public static String systemMachineId() throws IOException {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        if (os.contains("win")) {
            return fromCommand(Pattern.compile("MachineGuid\\s+REG_SZ\\s+(\\S+)"), "reg", "query", "HKLM\\SOFTWARE\\Microsoft\\Cryptography", "/v", "MachineGuid", "/reg:64");
        }
        if (os.contains("mac")) return fromCommand(Pattern.compile("\"IOPlatformUUID\"\\s*=\\s*\"([^\"]+)\""), "/usr/sbin/ioreg", "-rd1", "-c", "IOPlatformExpertDevice");
        for (String file : new String[] {"/etc/machine-id", "/var/lib/dbus/machine-id"}) {
            try {
                String id = Files.readString(Path.of(file), StandardCharsets.US_ASCII).strip();
                if (!id.isEmpty()) return id;
            } catch (IOException e) {
                // try the next place
            }
        }
        throw new IOException("neither /etc/machine-id nor /var/lib/dbus/machine-id holds an id");
    }

    private static String fromCommand(Pattern pattern, String... command) throws IOException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output;
        try (InputStream in = process.getInputStream()) {
            output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        Matcher matcher = pattern.matcher(output);
        if (!matcher.find()) throw new IOException(String.join(" ", command) + " gave no machine id");
        return matcher.group(1);
    }
}
