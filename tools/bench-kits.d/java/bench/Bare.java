package bench;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.SQSBatchResponse;
import com.amazonaws.services.lambda.runtime.events.SQSEvent;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * A bare Java handler: what a store writes without the kit, for the kit's
 * cold-start and per-record figures (tools/bench-kits): the SQS client made
 * at init, every record's body read, nothing failed.
 */
public class Bare implements RequestHandler<SQSEvent, SQSBatchResponse> {
    private static final SqsClient SQS = SqsClient.builder().httpClient(UrlConnectionHttpClient.create()).build();
    private static final JsonFactory JSON = new JsonFactory();

    @Override
    public SQSBatchResponse handleRequest(SQSEvent event, Context context) {
        for (SQSEvent.SQSMessage m : event.getRecords()) {
            try (JsonParser p = JSON.createParser(m.getBody())) {
                while (p.nextToken() != null) {
                    // read every token
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return new SQSBatchResponse(List.of());
    }
}
