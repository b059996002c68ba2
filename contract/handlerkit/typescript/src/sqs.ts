/**
 * The one SQS call the kit makes, SendMessage, behind a small function type
 * so tests inject a fake and the AWS SDK is loaded only when it is used.
 */

/** A message attribute as SendMessage takes it. */
export interface MessageAttributeValue {
  DataType: "String" | "Number";
  StringValue: string;
}

/** SendMessage's input, as @aws-sdk/client-sqs names its members. */
export interface SendMessageInput {
  QueueUrl: string;
  MessageBody: string;
  DelaySeconds?: number;
  MessageAttributes?: Record<string, MessageAttributeValue>;
}

/**
 * SendMessageFn sends one message; it rejects when SQS did not take it.
 * abortSignal ends the call at the Lambda deadline.
 */
export type SendMessageFn = (input: SendMessageInput, options: { abortSignal?: AbortSignal }) => Promise<unknown>;

/** What the kit needs of an SQSClient of @aws-sdk/client-sqs v3. */
export interface SqsClientLike {
  send(command: unknown, options?: { abortSignal?: AbortSignal }): Promise<unknown>;
}

interface SqsModule {
  SQSClient: new (config: object) => SqsClientLike;
  SendMessageCommand: new (input: SendMessageInput) => unknown;
}

/** KitConfigError: the kit was set up wrong (a bad pair, a missing SDK). It names code, never data. */
export class KitConfigError extends Error {
  override name = "KitConfigError";
}

function loadSdk(): SqsModule {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require("@aws-sdk/client-sqs") as SqsModule;
  } catch {
    throw new KitConfigError(
      "erasure handler kit: @aws-sdk/client-sqs cannot be loaded: the Lambda Node.js runtime provides it; elsewhere install it beside the kit",
    );
  }
}

/**
 * sqsSender returns a SendMessageFn over client, or over the SDK's default
 * client (region, credentials and endpoint from the environment, so
 * AWS_ENDPOINT_URL and AWS_ENDPOINT_URL_SQS are honoured) when none is given.
 */
export function sqsSender(client?: SqsClientLike): SendMessageFn {
  const sdk = loadSdk();
  const c = client ?? new sdk.SQSClient({});
  return (input, options) => c.send(new sdk.SendMessageCommand(input), options);
}
