package com.linncloud.erasure.handlerkit;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.SendMessageRequest;
import software.amazon.awssdk.services.sqs.model.SendMessageResponse;

/** An SqsClient that records SendMessage calls, and fails them for the queue URLs in {@link #failing}. */
final class FakeSqs implements SqsClient {
    final List<SendMessageRequest> sent = new ArrayList<>();
    final Set<String> failing = new HashSet<>();

    @Override
    public synchronized SendMessageResponse sendMessage(SendMessageRequest in) {
        if (failing.contains(in.queueUrl())) {
            // The message text an SDK error could carry: it must never reach a log line.
            throw SdkClientException.create("send failed for body " + in.messageBody());
        }
        sent.add(in);
        return SendMessageResponse.builder().messageId("m-" + sent.size()).build();
    }

    synchronized List<SendMessageRequest> to(String queueUrl) {
        return sent.stream().filter(m -> m.queueUrl().equals(queueUrl)).toList();
    }

    @Override
    public String serviceName() {
        return "sqs";
    }

    @Override
    public void close() {
    }
}
