package com.linncloud.erasure.example;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.SQSBatchResponse;
import com.amazonaws.services.lambda.runtime.events.SQSEvent;
import com.linncloud.erasure.handlerkit.ErasureHandler;

/**
 * The example store's erasure handler. Lambda handler string:
 * {@code com.linncloud.erasure.example.Handler::handleRequest}. The kit is built in the static initializer, during
 * Lambda's init: a wrong environment fails init, naming the variables and never their values.
 */
public class Handler implements RequestHandler<SQSEvent, SQSBatchResponse> {
    private static final ToyStore STORE = ToyStore.seeded();
    private static final ErasureHandler KIT = ErasureHandler.fromEnvironment(STORE.implementations());

    @Override
    public SQSBatchResponse handleRequest(SQSEvent event, Context context) {
        return KIT.handle(event, context);
    }
}
