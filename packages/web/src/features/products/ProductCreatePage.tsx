import { FeaturePending } from '../../components/FeaturePending.tsx';

export default function ProductCreatePage() {
  return <FeaturePending titleKey="pages.productCreate" />;
}
