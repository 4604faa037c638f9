/** @module The CDN port on CloudFront: one invalidation per publish. */
import { CloudFrontClient, CreateInvalidationCommand } from "@aws-sdk/client-cloudfront";
import type { Cdn } from "../scheduled/ports.ts";

export interface CloudFrontCdnOptions {
  distributionId: string;
  /** Defaults to a client from the environment (credentials, `AWS_ENDPOINT_URL_CLOUDFRONT`). */
  client?: CloudFrontClient;
}

/** Invalidates paths of one distribution; the caller reference makes a retried call one invalidation. */
export class CloudFrontCdn implements Cdn {
  private readonly client: CloudFrontClient;
  readonly distributionId: string;

  constructor(options: CloudFrontCdnOptions) {
    this.client = options.client ?? new CloudFrontClient({});
    this.distributionId = options.distributionId;
  }

  async invalidate(paths: string[], reference: string): Promise<void> {
    await this.client.send(
      new CreateInvalidationCommand({
        DistributionId: this.distributionId,
        InvalidationBatch: { CallerReference: reference, Paths: { Quantity: paths.length, Items: paths } },
      }),
    );
  }
}
