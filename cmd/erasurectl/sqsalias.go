package main

import "github.com/aws/aws-sdk-go-v2/service/sqs"

type (
	sqsReceiveInput  = sqs.ReceiveMessageInput
	sqsReceiveOutput = sqs.ReceiveMessageOutput
	sqsOptions       = sqs.Options
)
