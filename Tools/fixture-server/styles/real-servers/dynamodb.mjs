// The dynamodb style, as DynamoDB (moto) answers a Scan: POST /notes with a JSON body in DynamoDB's
// media type, Limit and ExclusiveStartKey in, Items and LastEvaluatedKey out; errors as DynamoDB writes them.

import { StyleError } from '../../shared/errors.mjs';
import { isPlainObject, jsonPage, mediaType, MAX_BODY_BYTES, readBody } from '../../shared/http.mjs';
import { logValue, secretsOf } from '../../server/log.mjs';

export const styles = ['dynamodb'];

/** DynamoDB's media type, of its requests and answers. */
export const DYNAMODB_TYPE = 'application/x-amz-json-1.0';

export const DYNAMODB_VALIDATION = 'com.amazon.coral.validation#ValidationException';

export const DYNAMODB_SERIALIZATION = 'com.amazon.coral.service#SerializationException';

export const DYNAMODB_UNKNOWN_OPERATION = 'com.amazon.coral.service#UnknownOperationException';

export const DYNAMODB_NOT_FOUND = 'com.amazonaws.dynamodb.v20120810#ResourceNotFoundException';

/** The X-Amz-Target of a Scan. */
export const DYNAMODB_SCAN_TARGET = 'DynamoDB_20120810.Scan';

/** The table the dynamodb style serves. */
export const DYNAMODB_TABLE = 'notes';

/** A DynamoDB error, as DynamoDB (and moto) answers: 400, its media type, `{"__type":…,"message":…}`. */
export function dynamoError(type, message) {
  return new StyleError(400, { __type: type, message }, { 'Content-Type': DYNAMODB_TYPE });
}

/** The key of a note in DynamoDB's typed JSON: `{"id":{"S":"n41"}}`, or `{"id":{"N":"41"}}` for an integer id. */
export function dynamoKey(id) {
  return { id: typeof id === 'number' ? { N: String(id) } : { S: id } };
}

/**
 * Reads the body of a DynamoDB Scan: a JSON object with `TableName` ("notes"), `Limit` (an integer of
 * at least 1; default `pageSize`, as DynamoDB's 1 MB; cut to `maxLimit` silently) and
 * `ExclusiveStartKey` (a dynamoKey of the id kind, absent on the first page); other members are
 * ignored. Returns `{body, limit, startingAfter}` (the id as written, or null); throws a StyleError in
 * DynamoDB's form: SerializationException for a body that is not a JSON object or a Limit that is not a
 * number, ValidationException for a missing table name, a Limit below 1 or a key of another shape,
 * ResourceNotFoundException for another table.
 */
export function parseDynamoScan(text, { pageSize, maxLimit, idKind = 'string' }) {
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    throw dynamoError(DYNAMODB_SERIALIZATION, 'the body is not JSON');
  }
  if (!isPlainObject(body)) throw dynamoError(DYNAMODB_SERIALIZATION, 'the body is not a JSON object');
  const { TableName: table = null, Limit: limit = null, ExclusiveStartKey: startKey = null } = body;
  if (table === null) {
    throw dynamoError(DYNAMODB_VALIDATION, "1 validation error detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null");
  }
  if (typeof table !== 'string') throw dynamoError(DYNAMODB_SERIALIZATION, 'TableName must be a string');
  if (table !== DYNAMODB_TABLE) throw dynamoError(DYNAMODB_NOT_FOUND, 'Requested resource not found');
  if (limit !== null && !Number.isInteger(limit)) throw dynamoError(DYNAMODB_SERIALIZATION, 'Limit must be an integer');
  if (limit !== null && limit < 1) {
    throw dynamoError(DYNAMODB_VALIDATION, `1 validation error detected: Value '${limit}' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1`);
  }
  let startingAfter = null;
  if (startKey !== null) {
    const type = idKind === 'int' ? 'N' : 'S';
    const value = isPlainObject(startKey) && Object.keys(startKey).length === 1 && isPlainObject(startKey.id) && Object.keys(startKey.id).length === 1
      ? startKey.id[type] : undefined;
    if (typeof value !== 'string') throw dynamoError(DYNAMODB_VALIDATION, 'The provided starting key is invalid: The provided key element does not match the schema');
    startingAfter = value;
  }
  return { body, limit: Math.min(limit ?? pageSize, maxLimit), startingAfter };
}

/**
 * Reads the body of a DynamoDB Scan (POST /notes in dynamodb style): Content-Type
 * application/x-amz-json-1.0 and, if the request has one, X-Amz-Target DynamoDB_20120810.Scan, then
 * parseDynamoScan. Returns the list query; throws StyleError in DynamoDB's form (413 for a body over
 * MAX_BODY_BYTES). The body goes to the log as the Notion query's does.
 */
export async function dynamoScan(req, state, record) {
  if (mediaType(req.headers['content-type']) !== DYNAMODB_TYPE) {
    throw dynamoError(DYNAMODB_SERIALIZATION, `a Scan is a POST of a JSON body with Content-Type: ${DYNAMODB_TYPE}`);
  }
  const target = req.headers['x-amz-target'];
  if (target !== undefined && target !== DYNAMODB_SCAN_TARGET) {
    throw dynamoError(DYNAMODB_UNKNOWN_OPERATION, `this endpoint answers X-Amz-Target: ${DYNAMODB_SCAN_TARGET} only`);
  }
  const body = await readBody(req);
  if (body === null) throw new StyleError(413, { __type: DYNAMODB_VALIDATION, message: `the body is over ${MAX_BODY_BYTES} bytes` }, { 'Content-Type': DYNAMODB_TYPE });
  const text = body.toString('utf8');
  try {
    record.detail = `body=${logValue(JSON.parse(text), secretsOf(state))}`;
  } catch {
    // Not JSON: parseDynamoScan says so.
  }
  return parseDynamoScan(text, state.generated);
}

/** A page (real-servers.mjs's `page`): the notes, and LastEvaluatedKey while more follow. */
export function respond(style, itemParts, { list, end, served, more, pageTwoAfter }) {
  const after = pageTwoAfter ?? (more ? list.idAt(end - 1) : null);
  return jsonPage(wrapDynamoDb(itemParts, { count: served, lastEvaluatedKey: after === null ? null : dynamoKey(after) }));
}

/**
 * dynamodb: `{"Count":nav.count,"Items":[…],"ScannedCount":nav.count,"LastEvaluatedKey":nav.lastEvaluatedKey}`
 * (the key left out when null) as application/x-amz-json-1.0.
 */
export function wrapDynamoDb(items, nav) {
  const last = nav.lastEvaluatedKey === null ? '' : `,"LastEvaluatedKey":${JSON.stringify(nav.lastEvaluatedKey)}`;
  return {
    headers: { 'Content-Type': DYNAMODB_TYPE },
    parts: [Buffer.from(`{"Count":${nav.count},"Items":`), ...items, Buffer.from(`,"ScannedCount":${nav.count}${last}}`)],
  };
}
