import { errorBody } from '@lm/contract';

/** The error answers every route may give, for the OpenAPI document. */
export const errorResponses = {
  400: errorBody,
  401: errorBody,
  403: errorBody,
  404: errorBody,
  409: errorBody,
  422: errorBody,
  429: errorBody,
} as const;
