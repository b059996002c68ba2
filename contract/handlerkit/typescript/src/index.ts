/**
 * @linn-cloud/erasure-handler-kit: the erasure channel's handler kit for
 * Node.js Lambda.
 *
 *     import { makeHandler } from "@linn-cloud/erasure-handler-kit";
 *     export const handler = makeHandler({
 *       "erasure/ERASE ACCOUNT": async (req, pass, signal) => "DONE",
 *     });
 *
 * makeHandler reads the environment when called (Lambda's init phase) and
 * throws an EnvError naming variables, never values. See README.md.
 */
export { makeHandler, combine, callTime, ATTR_PASS, ATTR_PASS_ONE_OUTCOME, DEADLINE_RESERVE_MS } from "./handler";
export type { ErasureHandler, HandlerOptions, SqsEvent, SqsRecord, LambdaContext, BatchResponse } from "./handler";
export {
  ContractError, validate, parseRequest, parseResponse, answerFor, encodeResponse, responseTypeFor, isExpired, expiresAtMillis,
} from "./contract";
export type { Answer, ContractCode } from "./contract";
export {
  EnvError, loadHandlerEnvironment, handlerVariableProblem, isSubscriberName, isRoleId, handlerSenderId,
  HANDLER_ENVIRONMENT_VARIABLES, FUNCTION_NAME_VARIABLE, CAPS,
} from "./env";
export type { HandlerEnvironment, EnvProblem } from "./env";
export { KitConfigError, sqsSender } from "./sqs";
export type { SendMessageFn, SendMessageInput, MessageAttributeValue, SqsClientLike } from "./sqs";
export { metricLine, logLine } from "./observe";
export type { LogFields } from "./observe";
export { CONSTANTS } from "./generated/contract-data";
export * from "./types";
