// Runs erasure-check, the erasure channel's app-wide check, from a jar of the
// Maven artifact com.linn-cloud:erasure-channel-check, one jar per platform
// (classifier), so that a team downloads the one binary its machines run
// instead of all five. tools/release/check_jars.py builds the jars: the binary
// is the resource erasure-check[.exe] beside this class, its SHA-256 the
// resource erasure-check.sha256. main extracts the binary once into a per-user
// cache, runs it with the arguments and exits with its exit code.
package com.linncloud.erasurechannel.check;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

public final class ErasureCheck {
    private static final boolean WINDOWS =
            System.getProperty("os.name", "").toLowerCase().startsWith("windows");
    private static final String NAME = WINDOWS ? "erasure-check.exe" : "erasure-check";

    private ErasureCheck() {}

    public static void main(String[] args) {
        run("erasure-check", args);
    }

    /**
     * Runs the binary as command: erasure-check, or erasure-conform (the same
     * program, told by ERASURE_COMMAND, since a Java process cannot set argv[0]).
     */
    static void run(String commandName, String[] args) {
        Path binary;
        try {
            binary = binary();
        } catch (IOException e) {
            fail(e.getMessage());
            return;
        }
        List<String> command = new ArrayList<>();
        command.add(binary.toString());
        command.addAll(Arrays.asList(args));
        try {
            ProcessBuilder pb = new ProcessBuilder(command).inheritIO();
            pb.environment().put("ERASURE_COMMAND", commandName);
            Process p = pb.start();
            System.exit(p.waitFor());
        } catch (IOException e) {
            fail("cannot run " + binary + ": " + e.getMessage());
        } catch (InterruptedException e) {
            fail("interrupted");
        }
    }

    /** The cached binary, extracted from this jar on first use. */
    private static Path binary() throws IOException {
        String sha256 = "";
        try (InputStream in = ErasureCheck.class.getResourceAsStream(NAME + ".sha256")) {
            if (in != null && ErasureCheck.class.getResource(NAME) != null) {
                sha256 = new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim();
            }
        }
        if (!sha256.matches("[0-9a-f]{64}")) {
            throw new IOException("this jar has no erasure-check for "
                    + System.getProperty("os.name") + "/" + System.getProperty("os.arch")
                    + "; use the classifier for this platform (linux-x86_64, linux-aarch_64,"
                    + " osx-x86_64, osx-aarch_64, windows-x86_64)");
        }
        String version = ErasureCheck.class.getPackage().getImplementationVersion();
        Path dir = cacheRoot().resolve("erasure-channel-check")
                .resolve((version == null ? "dev" : version) + "-" + sha256.substring(0, 16));
        Path target = dir.resolve(NAME);
        if (Files.isRegularFile(target) && Files.isExecutable(target)) {
            return target;
        }
        try {
            extract(dir, target, sha256);
        } catch (IOException e) {
            throw new IOException("cannot extract erasure-check into " + dir + ": " + e, e);
        }
        return target;
    }

    /** Writes a temp file in dir, checks its hash, makes it executable, renames it to target. */
    private static void extract(Path dir, Path target, String sha256) throws IOException {
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, ".erasure-check-", ".tmp");
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            try (InputStream in = ErasureCheck.class.getResourceAsStream(NAME);
                    OutputStream out = new DigestOutputStream(Files.newOutputStream(tmp), md)) {
                in.transferTo(out);
            }
            if (!hex(md.digest()).equals(sha256)) {
                throw new IOException("the binary in this jar does not match its SHA-256");
            }
            if (!WINDOWS) {
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
            }
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException e) {
                if (!Files.isRegularFile(target)) { // else another process won the race: use theirs
                    throw e;
                }
            }
        } catch (NoSuchAlgorithmException e) {
            throw new IOException(e);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** %LOCALAPPDATA% on Windows, else $XDG_CACHE_HOME or ~/.cache. */
    private static Path cacheRoot() {
        String home = System.getProperty("user.home");
        if (WINDOWS) {
            String local = System.getenv("LOCALAPPDATA");
            return local != null && !local.isEmpty() ? Paths.get(local)
                    : Paths.get(home, "AppData", "Local");
        }
        String xdg = System.getenv("XDG_CACHE_HOME");
        return xdg != null && xdg.startsWith("/") ? Paths.get(xdg) : Paths.get(home, ".cache");
    }

    private static String hex(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b) {
            s.append(String.format("%02x", x));
        }
        return s.toString();
    }

    private static void fail(String msg) {
        System.err.println("erasure-check: " + msg);
        System.exit(2);
    }
}

/**
 * erasure-conform, the handler conformance command, from the same jar:
 * {@code java -cp erasure-channel-check-VERSION-CLASSIFIER.jar
 * com.linncloud.erasurechannel.check.ErasureConform --runtime … --handler … DIR}.
 */
final class ErasureConform {
    private ErasureConform() {}

    public static void main(String[] args) {
        ErasureCheck.run("erasure-conform", args);
    }
}
