package com.linncloud.erasure.handlerkit;

import com.amazonaws.services.lambda.runtime.ClientContext;
import com.amazonaws.services.lambda.runtime.CognitoIdentity;
import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.LambdaLogger;

/** A Lambda context whose remaining time is fixed. */
final class FakeContext implements Context {
    private final int remainingMillis;

    FakeContext(int remainingMillis) {
        this.remainingMillis = remainingMillis;
    }

    @Override
    public int getRemainingTimeInMillis() {
        return remainingMillis;
    }

    @Override
    public String getAwsRequestId() {
        return "aws-req";
    }

    @Override
    public String getLogGroupName() {
        return "g";
    }

    @Override
    public String getLogStreamName() {
        return "s";
    }

    @Override
    public String getFunctionName() {
        return HandlerTest.FUNCTION;
    }

    @Override
    public String getFunctionVersion() {
        return "$LATEST";
    }

    @Override
    public String getInvokedFunctionArn() {
        return "arn:aws:lambda:eu-west-1:000000000000:function:" + HandlerTest.FUNCTION;
    }

    @Override
    public CognitoIdentity getIdentity() {
        return null;
    }

    @Override
    public ClientContext getClientContext() {
        return null;
    }

    @Override
    public int getMemoryLimitInMB() {
        return 512;
    }

    @Override
    public LambdaLogger getLogger() {
        return null;
    }
}
