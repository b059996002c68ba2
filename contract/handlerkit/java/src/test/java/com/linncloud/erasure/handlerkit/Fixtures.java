package com.linncloud.erasure.handlerkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Where the repository's schema/ folder is: the surefire property set by the pom, or ../../../schema. */
final class Fixtures {
    private Fixtures() {
    }

    static Path schemaDir() {
        String p = System.getProperty("erasure.schema.dir");
        return (p != null ? Path.of(p) : Path.of("../../../schema")).toAbsolutePath().normalize();
    }

    static byte[] read(String relative) throws IOException {
        return Files.readAllBytes(schemaDir().resolve(relative));
    }
}
