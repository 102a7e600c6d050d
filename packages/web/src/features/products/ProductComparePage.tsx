import { FeaturePending } from '../../components/FeaturePending.tsx';

export default function ProductComparePage() {
  return <FeaturePending titleKey="pages.productCompare" />;
}
